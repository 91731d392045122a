// An object store: a small daemon (npx tfjs-wm-store) that allocates and owns
// shared objects so they outlive the process that made them, lists them,
// and frees them on delete or when it stops. Clients talk to it over a Unix
// socket, one JSON request per line; the memory itself is mapped directly
// (CUDA IPC handles, memfd segments), never sent through the socket.
import * as fs from 'fs';
import * as net from 'net';

import * as tf from '@tensorflow/tfjs-core';

import {allocateShared, close, deleteShared, open, ownedShared, SharedDescriptor, SharedDType, SharedLocation, update} from './shared_objects';

interface Request {
  op: 'create' | 'get' | 'list' | 'delete' | 'stop' | 'ping';
  id?: string;
  shape?: number[];
  dtype?: SharedDType;
  location?: SharedLocation;
  mutable?: boolean;
}

type Reply = {ok: true; descriptor?: SharedDescriptor; objects?: SharedDescriptor[]; pid?: number} | {ok: false; error: string};

export interface StoreServer {
  readonly path: string;
  /** Frees every object and closes the socket. */
  stop(): Promise<void>;
  readonly stopped: Promise<void>;
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts a store listening at `path` (a socket file; a stale one is replaced). */
export async function startStore(path: string): Promise<StoreServer> {
  if (fs.existsSync(path)) {
    if (await canConnect(path)) throw new Error(`tfjs-wm-store: a store is already running at ${path}`);
    fs.unlinkSync(path);  // left by a store that was killed
  }
  // The store's objects and whether clients may write them (the creator always
  // gets one writable view, to fill it).
  const mutableOf = new Map<string, boolean>();
  const publicView = (d: SharedDescriptor): SharedDescriptor => ({...d, mutable: mutableOf.get(d.id) ?? false});
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const handle = (req: Request): Reply => {
    switch (req.op) {
      case 'ping':
        return {ok: true, pid: process.pid};
      case 'create': {
        const d = allocateShared({shape: req.shape ?? [], dtype: req.dtype, location: req.location, mutable: true, store: path});
        mutableOf.set(d.id, req.mutable ?? false);
        return {ok: true, descriptor: d};
      }
      case 'get': {
        const d = ownedShared().find((o) => o.id === req.id);
        if (!d) return {ok: false, error: `get: the store at ${path} holds no object ${req.id} (unknown id, or deleted)`};
        return {ok: true, descriptor: publicView(d)};
      }
      case 'list':
        return {ok: true, objects: ownedShared().filter((d) => mutableOf.has(d.id)).map(publicView)};
      case 'delete': {
        if (!req.id || !mutableOf.has(req.id)) return {ok: false, error: `delete: the store at ${path} holds no object ${req.id} (unknown id, or deleted)`};
        deleteShared(req.id);
        mutableOf.delete(req.id);
        return {ok: true};
      }
      default:
        return {ok: false, error: `unknown request '${(req as Request).op}'`};
    }
  };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);  // a client that crashed: nothing of theirs to clean up here
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let reply: Reply;
        let req: Request | undefined;
        try {
          req = JSON.parse(line) as Request;
          reply = req.op === 'stop' ? {ok: true} : handle(req);
        } catch (e) {
          reply = {ok: false, error: (e as Error).message};
        }
        socket.write(`${JSON.stringify(reply)}\n`);
        if (req?.op === 'stop') void stop();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= new Promise<void>((resolve) => {
    for (const id of mutableOf.keys()) deleteShared(id);
    mutableOf.clear();
    server.close(() => {
      resolve();
      resolveStopped();
    });
    for (const s of sockets) s.end();
    try {
      fs.unlinkSync(path);
    } catch {
      // already gone
    }
  }));
  return {path, stop, stopped};
}

/** A connection to a store. Every method is one request. */
export class StoreClient {
  private buffered = '';
  private waiting: ((r: Reply) => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly socket: net.Socket, readonly path: string) {
    socket.on('data', (chunk) => {
      this.buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.waiting.shift()?.(JSON.parse(line) as Reply);
      }
    });
    socket.on('close', () => {
      for (const w of this.waiting.splice(0)) w({ok: false, error: `the store at ${path} closed the connection`});
    });
  }

  static connect(path: string): Promise<StoreClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path);
      s.once('connect', () => resolve(new StoreClient(s, path)));
      s.once('error', (e) => reject(new Error(`connectStore: no store answers at ${path} (${e.message}); start one with npx tfjs-wm-store --socket ${path}`)));
    });
  }

  private request(req: Request): Promise<Reply & {ok: true}> {
    const run = () => new Promise<Reply>((resolve) => {
      this.waiting.push(resolve);
      this.socket.write(`${JSON.stringify(req)}\n`);
    }).then((r) => {
      if (!r.ok) throw new Error(r.error);
      return r;
    });
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** A new zero-filled object owned by the store; the descriptor returned is writable (to fill it). */
  async create(opts: {shape: number[]; dtype?: SharedDType; location?: SharedLocation; mutable?: boolean}): Promise<SharedDescriptor> {
    return (await this.request({op: 'create', ...opts})).descriptor!;
  }

  /** Copies t into a new object owned by the store; returns its public descriptor. */
  async put(t: tf.Tensor, opts: {location?: SharedLocation; mutable?: boolean} = {}): Promise<SharedDescriptor> {
    const d = await this.create({shape: t.shape, dtype: t.dtype as SharedDType, location: opts.location, mutable: opts.mutable});
    const view = open(d);
    try {
      update(view, t);
    } finally {
      close(view);
    }
    return this.get(d.id);
  }

  async get(id: string): Promise<SharedDescriptor> {
    return (await this.request({op: 'get', id})).descriptor!;
  }

  /** Opens an object by id (asks the store first, so a deleted id fails clearly). */
  async open(id: string): Promise<tf.Tensor> {
    return open(await this.get(id));
  }

  async list(): Promise<SharedDescriptor[]> {
    return (await this.request({op: 'list'})).objects!;
  }

  async delete(id: string): Promise<void> {
    await this.request({op: 'delete', id});
  }

  /** Stops the store (it frees every object). */
  async stop(): Promise<void> {
    await this.request({op: 'stop'});
  }

  close(): void {
    this.socket.end();
  }
}

export function connectStore(path: string): Promise<StoreClient> {
  return StoreClient.connect(path);
}
