#!/usr/bin/env node
// npx tfjs-wm-store [--socket <path>]: a daemon that owns shared tensors so
// they outlive the processes that made them (see src/share/store.ts).
// Stops on SIGINT/SIGTERM or a client's store.stop(), freeing everything.
// With --list or --stop it is a client of the store at that path instead.

import * as tf from '@tensorflow/tfjs-core';
import {Command} from 'commander';

import * as wm from '../src/index';
import {defaultStorePath, startStore} from '../src/share/store';

const program = new Command()
  .name('tfjs-wm-store')
  .description('Owns shared tfjs-backend-wholememory objects (GPU memory by CUDA IPC, host memory as memfd segments)')
  .option(
    '--socket <path>',
    'the Unix socket clients connect to (created 0600; its directory must be closed to other users or sticky; ' +
      "default: store.sock in this user's private folder)",
  )
  .option('--list', 'print the objects of the store at --socket (one JSON descriptor per line) and exit')
  .option('--stop', 'stop the store at --socket (it frees every object) and exit')
  .parse();

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const o = program.opts();
  const {list, stop} = o;
  // The default folder is checked here, so a refusal is reported like any other error.
  const socket: string = o.socket ?? defaultStorePath();
  if (list || stop) {
    const client = await wm.connectStore(socket);
    if (list) for (const d of await client.list()) console.log(JSON.stringify(d));
    if (stop) await client.stop();
    client.close();
    return;
  }
  const store = await startStore(socket);
  const info = wm.deviceInfo();
  console.log(
    `tfjs-wm-store: listening on ${store.path} (pid ${process.pid}, ${info.gpu ? `GPU ${info.device} ${info.name}` : 'host memory only'})`,
  );
  const quit = () => void store.stop();
  process.on('SIGINT', quit);
  process.on('SIGTERM', quit);
  await store.stopped;
  console.log('tfjs-wm-store: stopped; every object freed');
  process.exit(0);
}

main().catch((e) => {
  console.error(`tfjs-wm-store: ${(e as Error).message}`);
  process.exit(1);
});
