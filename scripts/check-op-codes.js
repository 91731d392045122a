#!/usr/bin/env node
// The operation codes src/kernel_utils/op_codes.ts sends are the C++ enums' values: each TypeScript enum
// must list the same names in the same order as its C++ enum (UnaryOp and BinaryOp in
// native/src/kernels/elementwise.h, ReduceOp in native/src/kernels/ops.h, PoolOp in
// native/include/wm/window2d.h), starting at 0 with no value of its own after that. Prints each
// disagreement and exits 1 if there is one.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const read = (f) => fs.readFileSync(path.join(root, f), 'utf8');
const stripComments = (s) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

/** The enum's members in order, as [name, explicit value or undefined]. */
function members(body) {
  return stripComments(body)
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .map((m) => {
      const [name, value] = m.split('=').map((x) => x.trim());
      return [name, value === undefined ? undefined : Number(value)];
    });
}

function cppEnum(file, name) {
  const m = new RegExp(`enum\\s+class\\s+${name}\\s*:\\s*int\\s*\\{([\\s\\S]*?)\\}`).exec(read(file));
  if (!m) throw new Error(`${file}: no enum class ${name}`);
  return members(m[1]);
}

function tsEnum(file, name) {
  const m = new RegExp(`export\\s+const\\s+enum\\s+${name}\\s*\\{([\\s\\S]*?)\\}`).exec(read(file));
  if (!m) throw new Error(`${file}: no enum ${name}`);
  return members(m[1]);
}

const TS = 'src/kernel_utils/op_codes.ts';
const pairs = [
  ['UnaryOp', 'native/src/kernels/elementwise.h'],
  ['BinaryOp', 'native/src/kernels/elementwise.h'],
  ['ReduceOp', 'native/src/kernels/ops.h'],
  ['PoolOp', 'native/include/wm/window2d.h'],
];
const problems = [];
for (const [name, cppFile] of pairs) {
  const ts = tsEnum(TS, name),
    cpp = cppEnum(cppFile, name);
  for (const [list, file] of [
    [ts, TS],
    [cpp, cppFile],
  ])
    list.forEach(([member, value], i) => {
      if (value !== undefined && value !== (i === 0 ? 0 : NaN)) problems.push(`${file}: ${name}.${member} = ${value}: only the first member may be numbered (0)`);
    });
  const n = Math.max(ts.length, cpp.length);
  for (let i = 0; i < n; ++i) {
    const a = ts[i]?.[0],
      b = cpp[i]?.[0];
    if (a !== b) {
      problems.push(`${name} value ${i}: ${TS} has ${a ?? 'nothing'}, ${cppFile} has ${b ?? 'nothing'}`);
      break;
    }
  }
}
for (const p of problems) console.error(`op codes: ${p}`);
if (problems.length) process.exit(1);
console.log(`op codes: ${pairs.map(([n]) => n).join(', ')} agree with their C++ enums`);
