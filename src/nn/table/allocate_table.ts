// Which TableStorage a table's memory option makes: the one dispatcher over the kinds of memory.
import {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {Communicator, soloCommunicator} from '../../memory/communicator';
import {deviceStatus} from '../../native/device';
import {embeddingNative} from '../../native/domains';
import {DeviceTable} from './device_table';
import {DistributedTable} from './distributed_table';
import {HierarchicalTable, hostShare} from './hierarchical_table';
import {HostTable} from './host_table';
import {TableRequest, TableStorage} from './table_storage';
import {hostCommunicators} from '../../memory/communicator_split';
import {checkCapacity} from '../../memory/capacity';

export type TableMemory = 'device' | 'host' | 'continuous' | 'chunked' | 'distributed' | 'hierarchical' | 'managed';

/**
 * Storage for `memory` on this machine (`gpu`: tensors live on the GPU). Shared kinds use `communicator`,
 * or a group of this process alone (destroyed with the table).
 */
export function allocateTable(
  r: TableRequest,
  memory: TableMemory,
  gpu: boolean,
  backend: unknown,
  communicator?: Communicator,
): TableStorage {
  const b = backend instanceof WholeMemoryBackend && backend.gpu ? backend : undefined;
  const needBackend = () => {
    if (!b) throw new Error(`embedding: memory '${memory}' needs the 'wholememory' backend active`);
    return b;
  };
  const group = (): [Communicator, () => void] => {
    if (communicator) return [communicator, () => {}];
    const own = soloCommunicator();
    return [own, () => own.destroy()];
  };
  switch (memory) {
    case 'managed':
    case 'device': {
      // Without a GPU, managed memory is host memory.
      if (!gpu && memory === 'managed') return HostTable.arrays(r);
      if (!gpu) throw new Error(`embedding: memory 'device' needs a GPU (${deviceStatus().reason}); use 'host'`);
      const d = needBackend();
      const alloc = memory === 'managed' ? (m: number) => d.allocManaged(m) : (m: number) => d.allocDevice(m);
      return DeviceTable.buffers(d, r, alloc, (p) => d.freeDevice(p), memory === 'managed');
    }
    case 'host':
      // With a GPU: pinned host memory mapped for it; the GPU kernels read it over the bus.
      if (!gpu) return HostTable.arrays(r);
      return DeviceTable.buffers(
        needBackend(),
        r,
        (m) => embeddingNative().pinnedHostAlloc(m),
        (p) => embeddingNative().pinnedHostFree(p),
        false,
      );
    case 'continuous':
    case 'chunked': {
      const [comm, done] = group();
      const type = memory === 'continuous' ? 0 : 1;
      return gpu ? DeviceTable.wholeMemory(needBackend(), r, comm, type, done) : HostTable.wholeMemory(r, comm, type, done);
    }
    case 'distributed': {
      const [comm, done] = group();
      return new DistributedTable(r, comm, gpu ? needBackend() : undefined, done);
    }
    case 'hierarchical':
      return hierarchical(r, gpu ? needBackend() : undefined, ...group());
    default:
      throw new RangeError(
        `embedding: memory must be device, host, continuous, chunked, distributed, hierarchical or managed, got '${memory}'`,
      );
  }
}

// Split between hosts, shared within each: the group's ranks split by host name, every host with as many ranks; this
// host's rows in chunked GPU WholeMemory (continuous host memory without a GPU) over its ranks.
function hierarchical(r: TableRequest, b: WholeMemoryBackend | undefined, comm: Communicator, done: () => void): TableStorage {
  const {host, across} = hostCommunicators(comm);
  try {
    const sizes = comm.allgatherJson(host.size, "embedding: memory 'hierarchical' (ranks a host)");
    if (new Set(sizes).size > 1)
      throw new RangeError(
        `embedding: memory 'hierarchical' needs as many ranks on every host; the group's hosts have ${[...new Set(sizes)].join(', ')} ranks`,
      );
    const share = hostShare(r.rows, across.size, across.rank);
    const mine = {...r, rows: Math.max(share.count, 1), rowBase: share.first};
    const rowBytes = r.dim * r.elementBytes + 4 * r.states * r.stateWidth;
    checkCapacity(
      `embedding (${r.rows} rows, memory 'hierarchical': ${share.count} on this host)`,
      Math.ceil((mine.rows * rowBytes) / (b ? host.size : 1)),
      b ? 'device' : 'host',
    );
    if (b) {
      const inner = DeviceTable.wholeMemory(b, mine, host, 1, () => {});
      return new HierarchicalTable(r.rows, r.dim, comm, host, across, inner, done, {b, table: inner.kernelTable});
    }
    return new HierarchicalTable(
      r.rows,
      r.dim,
      comm,
      host,
      across,
      HostTable.wholeMemory(mine, host, 0, () => {}),
      done,
    );
  } catch (e) {
    across.destroy();
    host.destroy();
    done();
    throw e;
  }
}
