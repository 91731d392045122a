// Communicators made from another's ranks (MPI_Comm_split): every rank of the parent calls with a color, the
// ranks of one color form a new group, ordered by key (then by their rank in the parent). The new group's first
// rank listens (on loopback when the group sits on one host, else on every interface, announcing the addresses
// a member on another host can reach) and authenticates its ranks with a secret each rank derives from the
// parent's and a fresh nonce (HMAC-SHA-256): only the nonce and the address cross the parent's sockets.
// `hostCommunicators` makes the two groups hierarchical work needs: the ranks of this rank's host, and the
// ranks that hold this rank's place on every host.
import * as crypto from 'crypto';
import * as os from 'os';

import {Communicator, createCommunicator} from './communicator';
import {memoryNative} from '../native/domains';

export interface SplitOptions {
  /** Orders the new group's ranks (ties: the parent's rank order). Default: the parent's rank. */
  key?: number;
  /** Bound on every collective of the new group, in ms (default: the parent's). */
  timeoutMs?: number;
}

interface Offer {
  color: number;
  key: number;
  host: string;
  bad: string;
}

interface Address {
  address: string;
  netmask: string;
}

interface Listening {
  port: number;
  nonce: string;
  addresses: Address[];
  error?: string;
}

function ipv4Number(a: string): number {
  return a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** This host's IPv4 addresses other hosts may reach (WM_HOST_ADDR first, when set). */
function reachableAddresses(): Address[] {
  const own = Object.values(os.networkInterfaces())
    .flat()
    .filter((i): i is os.NetworkInterfaceInfo => i !== undefined && i.family === 'IPv4' && !i.internal)
    .map((i) => ({address: i.address, netmask: i.netmask}));
  const pinned = process.env.WM_HOST_ADDR;
  return pinned ? [{address: pinned, netmask: '255.255.255.255'}, ...own.filter((a) => a.address !== pinned)] : own;
}

/** Of the leader's addresses, the first on a network this host is on; else the first. */
function addressToReach(leader: Address[]): string {
  const mine = reachableAddresses();
  const sameNet = leader.find((l) =>
    mine.some((m) => {
      const mask = ipv4Number(l.netmask);
      return (ipv4Number(l.address) & mask) >>> 0 === (ipv4Number(m.address) & mask) >>> 0;
    }),
  );
  return (sameNet ?? leader[0]).address;
}

/** The secret of a group split off `parentSecret` under `nonce`: every member computes it, none sends it. */
function derivedSecret(parentSecret: string, nonce: string): string {
  return crypto.createHmac('sha256', Buffer.from(parentSecret, 'hex')).update(`tfjs-wm split ${nonce}`).digest('hex');
}

function checkColor(color: number, key: number | undefined): string {
  if (!Number.isInteger(color) || color < 0 || color > 2 ** 31 - 1) return `color must be an integer in [0, 2^31), got ${color}`;
  if (key !== undefined && !Number.isSafeInteger(key)) return `key must be a safe integer, got ${key}`;
  return '';
}

/**
 * Collective over every rank of `comm`: the ranks that pass the same color form a new communicator, ordered by
 * key (then by their rank in `comm`). A bad color or key on any rank throws on every rank, naming it. The new
 * communicator is whole (malloc, allReduce, tables); destroy it before `comm`.
 */
export function splitCommunicator(comm: Communicator, color: number, opts: SplitOptions = {}): Communicator {
  const offers = comm.allgatherJson<Offer>(
    {color, key: opts.key ?? comm.rank, host: os.hostname(), bad: checkColor(color, opts.key)},
    'splitCommunicator (colors)',
  );
  const bad = offers.map((o, r) => (o.bad ? `rank ${r}: ${o.bad}` : '')).filter((s) => s);
  if (bad.length) throw new RangeError(`splitCommunicator: ${bad.slice(0, 3).join('; ')}`);
  const members = offers
    .map((o, r) => ({...o, rank: r}))
    .filter((o) => o.color === color)
    .sort((a, b) => a.key - b.key || a.rank - b.rank);
  const leader = members[0];
  const mine = members.findIndex((m) => m.rank === comm.rank);
  const oneHost = members.every((m) => m.host === leader.host);
  const timeoutMs = opts.timeoutMs ?? comm.timeoutMs;
  // The leader listens before any member learns where: members connect once the announcements below are in.
  let id = '';
  let listening: Listening | null = null;
  if (mine === 0) {
    const nonce = crypto.randomBytes(12).toString('hex');
    const addresses = oneHost ? [{address: '127.0.0.1', netmask: '255.0.0.0'}] : reachableAddresses();
    try {
      if (!addresses.length) throw new Error('this host has no IPv4 address other hosts can reach (set WM_HOST_ADDR)');
      id = memoryNative().bootstrapUniqueId(oneHost ? '127.0.0.1' : '0.0.0.0', 0, nonce, derivedSecret(comm.secret, nonce));
      listening = {port: Number(id.split(':')[1]), nonce, addresses};
    } catch (e) {
      listening = {port: 0, nonce, addresses, error: (e as Error).message};
    }
  }
  const all = comm.allgatherJson<Listening | null>(listening, 'splitCommunicator (addresses)');
  const l = all[leader.rank];
  if (!l || l.error) {
    throw new Error(`splitCommunicator: rank ${leader.rank}, first of color ${color}, could not listen: ${l?.error ?? 'no address'}`);
  }
  if (mine !== 0) {
    const host = oneHost ? '127.0.0.1' : addressToReach(l.addresses);
    id = `${host}:${l.port}:${l.nonce}:${derivedSecret(comm.secret, l.nonce)}`;
  }
  try {
    return createCommunicator(id, mine, members.length, {timeoutMs});
  } catch (e) {
    // The new group's ranks are named by their place in it: say which of the parent's ranks they are.
    const ranks = members.map((m, i) => `${i} = ${m.rank}`).join(', ');
    throw new Error(`splitCommunicator (color ${color}): ${(e as Error).message} (the new group's ranks: ${ranks} of the parent)`);
  }
}

/**
 * Collective: `host`, the ranks on this rank's host (they may share memory: continuous and chunked tensors), and
 * `across`, the ranks that hold this rank's place on every host (its local rank), one a host. Hosts are told apart
 * by host name.
 */
export function hostCommunicators(comm: Communicator, opts: {timeoutMs?: number} = {}): {host: Communicator; across: Communicator} {
  const names = comm.allgatherJson(os.hostname(), 'hostCommunicators (hosts)');
  const hosts = [...new Set(names)].sort();
  const local = names.slice(0, comm.rank).filter((n) => n === names[comm.rank]).length;
  const host = splitCommunicator(comm, hosts.indexOf(names[comm.rank]), opts);
  try {
    return {host, across: splitCommunicator(comm, local, {...opts, key: hosts.indexOf(names[comm.rank])})};
  } catch (e) {
    host.destroy();
    throw e;
  }
}
