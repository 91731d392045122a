// An object store: a small daemon (npx tfjs-wm-store) that allocates and owns
// shared objects so they outlive the process that made them, lists them,
// and frees them on delete or when it stops. Clients talk to it over a Unix
// socket, one JSON request per line; the memory itself is mapped directly
// (CUDA IPC handles, memfd segments), never sent through the socket.
//
// Only this user gets in: the socket is created 0600 in a directory no one
// else can write to (by default a 0700 one of this user's), the store drops
// a client of another uid (SO_PEERCRED), and a client refuses a socket, or a
// store, that belongs to someone else.
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {checkPrivate, privateDir} from '../util/private_files';
import {
  allocateShared,
  close,
  deleteShared,
  open,
  ownedShared,
  sealShared,
  SharedDescriptor,
  SharedDType,
  SharedLocation,
  update,
} from './shared_objects';
import {shareNative} from '../native/domains';

/** Where a store listens unless told otherwise: a socket in this user's private directory. */
export function defaultStorePath(): string {
  return path.join(privateDir(), 'store.sock');
}

/** The uid at the other end of a connected Unix socket. */
function peerUid(socket: net.Socket): number {
  const fd = (socket as unknown as {_handle?: {fd?: number}})._handle?.fd;
  if (fd === undefined || fd < 0) throw new Error('the store socket has no descriptor to ask for its peer');
  return shareNative().socketPeer(fd).uid;
}

// A socket path's directory must be closed to other users' writes (or
// sticky, like /tmp: they cannot replace our file), and a socket already
// there must be ours.
function checkStorePath(p: string): void {
  const dir = path.dirname(path.resolve(p));
  const st = fs.statSync(dir);
  const uid = process.getuid!();
  const sticky = (st.mode & 0o1000) !== 0;
  if (!sticky && (st.uid !== uid || (st.mode & 0o022) !== 0)) {
    throw new Error(
      `tfjs-wm-store: ${dir} may be written by other users (owner uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)}); ` +
        `put the socket in a directory of your own (the default is ${defaultStorePath()})`,
    );
  }
  if (fs.existsSync(p)) checkPrivate(p, 'socket');
}

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

/** Starts a store listening at `path` (a socket file; a stale one of ours is replaced). */
export async function startStore(path: string = defaultStorePath()): Promise<StoreServer> {
  checkStorePath(path);
  if (fs.existsSync(path)) {
    if (await canConnect(path)) throw new Error(`tfjs-wm-store: a store is already running at ${path}`);
    fs.unlinkSync(path); // left by a store that was killed
  }
  // The store's objects and whether clients may write them (the creator always
  // gets one writable view, to fill it).
  const mutableOf = new Map<string, boolean>();
  // An object leaves the creator's hands when it is first published (get,
  // list): a read-only one is sealed then, so no holder can write it.
  const publish = (d: SharedDescriptor): SharedDescriptor => {
    const mutable = mutableOf.get(d.id) ?? false;
    if (!mutable) sealShared(d.id);
    return {...d, mutable};
  };
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
        return {ok: true, descriptor: publish(d)};
      }
      case 'list':
        return {
          ok: true,
          objects: ownedShared()
            .filter((d) => mutableOf.has(d.id))
            .map(publish),
        };
      case 'delete': {
        if (!req.id || !mutableOf.has(req.id))
          return {ok: false, error: `delete: the store at ${path} holds no object ${req.id} (unknown id, or deleted)`};
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
    let uid = -1;
    try {
      uid = peerUid(socket);
    } catch {
      // no credentials: treated as a stranger below
    }
    if (uid !== process.getuid!()) {
      console.error(`tfjs-wm-store: refused a client of uid ${uid} (the store serves uid ${process.getuid!()} only)`);
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // a client that crashed: nothing of theirs to clean up here
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
  // Created 0600 from the start: no moment when another user may connect.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  checkPrivate(path, 'socket');
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= new Promise<void>((resolve) => {
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

  private constructor(
    private readonly socket: net.Socket,
    readonly path: string,
  ) {
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

  static async connect(path: string = defaultStorePath()): Promise<StoreClient> {
    if (fs.existsSync(path)) checkPrivate(path, 'socket'); // another user's socket: never send it our data
    return new Promise((resolve, reject) => {
      const s = net.connect(path);
      s.once('connect', () => {
        const uid = peerUid(s);
        if (uid !== process.getuid!()) {
          s.destroy();
          reject(new Error(`connectStore: the store at ${path} is run by uid ${uid}, not by this user; refusing to use it`));
          return;
        }
        resolve(new StoreClient(s, path));
      });
      s.once('error', (e) =>
        reject(new Error(`connectStore: no store answers at ${path} (${e.message}); start one with npx tfjs-wm-store --socket ${path}`)),
      );
    });
  }

  private request(req: Request): Promise<Reply & {ok: true}> {
    const run = () =>
      new Promise<Reply>((resolve) => {
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

export async function connectStore(path?: string): Promise<StoreClient> {
  // The default path is resolved inside the promise: a refused folder rejects, as a refused path does.
  return StoreClient.connect(path ?? defaultStorePath());
}
