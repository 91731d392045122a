#!/usr/bin/env node
// The layer order of docs/architecture.md, checked: every import of a TypeScript file under src/
// (type imports included) must go to its own layer or one below it. The layers are read from the
// document's "## Layers" block (top to bottom, the programs first), so the map and the check are one
// source. Prints each upward import and exits 1 if there is one. (Circles: `npm run lint:imports`.)
// Also the domain rule of src/native/domains.ts: only the backend, the kernels and the native loader
// hold the whole addon; code elsewhere under src/ reaches it through its domain module
// (graphNative(), layerNative(), ...), never through `backend.native` or native() / nativeAddon().
// And the native core's one rule: native/src/runtime/ includes only itself and the public headers
// (wm/...), never a domain (kernels/, graph/, collectives/, ...); the public headers include only
// one another.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** The layers, top first: each a list of path prefixes ('src/nn/', 'src/index.ts'). */
function readLayers(doc) {
  const text = fs.readFileSync(doc, 'utf8');
  const block = text.slice(text.indexOf('## Layers'));
  const lines = block.slice(block.indexOf('```') + 3).split('\n');
  const layers = [];
  for (const line of lines) {
    if (line.startsWith('```') || line.startsWith('----')) break;
    const prefixes = [];
    for (const token of line.split(/[\s,]+/)) {
      if (/^(src|examples|bin|bench)\//.test(token)) prefixes.push(token);
      else if (token !== '') break; // the description starts
    }
    if (prefixes.length) layers.push(prefixes);
  }
  if (layers.length < 3) throw new Error(`${doc}: no "## Layers" block with the layers, one per line`);
  return layers;
}

function layerOf(layers, rel) {
  return layers.findIndex((prefixes) => prefixes.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p)));
}

function tsFiles(dir) {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The relative module paths a file imports or re-exports (`import type` too). */
function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const out = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gm)) out.push(m[1] ?? m[2]);
  return out;
}

function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

// Folders that may hold the whole addon.
const WHOLE_ADDON = ['src/backend/', 'src/kernels/', 'src/kernel_utils/', 'src/native/'];

/** Uses of the whole addon in a file above the backend: `x.native.` and the loaders' functions. */
function addonBypasses(file, rel) {
  if (!rel.startsWith('src/') || WHOLE_ADDON.some((p) => rel.startsWith(p))) return [];
  const out = [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    if (/\.native\b/.test(line)) out.push(`${rel}:${i + 1}: the whole addon through .native (use its domain module, src/native/domains.ts)`);
    if (/^\s*import\b[^;]*\b(native|nativeAddon)\b[^;]*from\s+'[^']*native\/(device|addon)'/.test(line))
      out.push(`${rel}:${i + 1}: imports the whole addon (use its domain module, src/native/domains.ts)`);
  });
  return out;
}

/** Quoted includes that break the native rule, as "file:line: what". */
function nativeProblems() {
  const out = [];
  const scan = (dir, allowed) => {
    for (const e of fs.readdirSync(path.join(root, dir), {withFileTypes: true})) {
      if (!e.isFile()) continue;
      const rel = `${dir}/${e.name}`;
      fs.readFileSync(path.join(root, rel), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const m = /^\s*#\s*include\s+"([^/"]+)\//.exec(line);
          if (m && !allowed.includes(m[1])) out.push(`${rel}:${i + 1}: includes ${m[1]}/ (allowed: ${allowed.join(', ')})`);
        });
    }
  };
  scan('native/src/runtime', ['runtime', 'wm']);
  scan('native/include/wm', ['wm']);
  return out;
}

function main() {
  const layers = readLayers(path.join(root, 'docs', 'architecture.md'));
  const problems = [];
  for (const dir of ['src', 'examples', 'bin', 'bench']) {
    if (!fs.existsSync(path.join(root, dir))) continue;
    for (const file of tsFiles(path.join(root, dir))) {
      const rel = path.relative(root, file).split(path.sep).join('/');
      const from = layerOf(layers, rel);
      if (from < 0) {
        if (rel.startsWith('src/')) problems.push(`${rel}: in no layer of docs/architecture.md`);
        continue;
      }
      problems.push(...addonBypasses(file, rel));
      for (const spec of importsOf(file)) {
        const target = resolve(file, spec);
        if (!target) continue;
        const to = layerOf(layers, path.relative(root, target).split(path.sep).join('/'));
        if (to >= 0 && to < from) problems.push(`${rel} imports ${spec}: ${layers[to].join(' ')} is above ${layers[from].join(' ')}`);
      }
    }
  }
  problems.push(...nativeProblems());
  for (const p of problems) console.error(p);
  console.log(`layers: ${layers.length} read from docs/architecture.md; ${problems.length} upward import(s), addon bypass(es) or native includes across the rule`);
  process.exit(problems.length ? 1 : 0);
}

main();
