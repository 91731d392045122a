#!/usr/bin/env node
// The addon's signatures, checked against the C++ that reads them, so each op's arguments are said once
// in TypeScript and cannot drift from the code that reads them:
//  - the op table: every `WM_OP(name, Device|Host, a)` body in native/src/ reads its arguments by
//    position and name (a.count(4, "rows")). Each registered op must be typed in `NativeOps`
//    (src/native/ops.ts) and nothing else may be typed there; the TypeScript parameter at each position
//    must carry the name the C++ reads there and a type that admits what the reader accepts; parameters
//    the bodies never read, or read as optional (a.present(i), a flag with a default), must be optional
//    exactly when the C++ treats them so; a device and a host body of one op must read the same names.
//  - the hand-written bindings (native/addon/*_bindings.cc): every name they export or define on a class
//    must be typed in `NativeBindings` (src/native/addon.ts) or one of the interfaces it names, and every
//    function there must be exported; where a binding reads its arguments through the same reader
//    (wmnapi::Args a(info, "name")), the names at each position are checked as for the table.
// Prints each disagreement and exits 1 if there is one.
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const problems = [];

function walk(dir, ext) {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p, ext) : ext.some((x) => e.name.endsWith(x)) ? [p] : [];
  });
}

// The text of a brace-delimited body starting at `open` (the index of '{').
function bodyAt(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; ++i) {
    if (text[i] === '{') ++depth;
    else if (text[i] === '}' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

const BUFFER_READERS = new Set(['address', 'tensor', 'floats', 'ints', 'bytes', 'length', 'typed', 'floatsOrNull', 'indices']);
const NUMBER_READERS = new Set(['count', 'integer', 'number', 'indexType', 'optimizer']);
// Readers of objects: the TypeScript type that carries what they read.
const OBJECT_READERS = {graph: ['NativeGraph'], table: ['NativeTable'], cacheBackingTable: ['NativeTable'], optimizerParams: ['NativeOptimizerParams'], state: ['typed', 'null', 'NativeHostMemory']};

/** Reads of one body: position -> {names: Set, readers: Set, optional: bool}. */
function readsOf(body, argName) {
  const reads = new Map();
  const at = (i) => {
    if (!reads.has(i)) reads.set(i, {names: new Set(), readers: new Set(), optional: false});
    return reads.get(i);
  };
  const esc = argName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // a.reader(i, "name"[, ...])
  for (const m of body.matchAll(new RegExp(`\\b${esc}\\.(\\w+)\\((\\d+),\\s*"(\\w+)"([^;]*?)\\)`, 'g'))) {
    const r = at(Number(m[2]));
    r.names.add(m[3]);
    r.readers.add(m[1]);
    if (m[1] === 'flag' && /^\s*,/.test(m[4])) r.optional = true;
  }
  // a.present(i) / a.kind(i): the argument may be left out
  for (const m of body.matchAll(new RegExp(`\\b${esc}\\.(present|kind)\\((\\d+)\\)`, 'g'))) at(Number(m[2])).optional = true;
  // a.csr(rowPtrArg, colIdxArg, ...): positions of a CSR's arrays
  for (const m of body.matchAll(new RegExp(`\\b${esc}\\.csr\\((\\d+),\\s*(\\d+)`, 'g'))) {
    at(Number(m[1])).readers.add('csr');
    at(Number(m[2])).readers.add('csr');
  }
  // helper(a, i, ...): read by a helper, name not known here
  for (const m of body.matchAll(new RegExp(`\\b(\\w+)\\(${esc},\\s*(\\d+)\\b`, 'g'))) at(Number(m[2])).readers.add(`helper ${m[1]}`);
  return reads;
}

// ---- the TypeScript side --------------------------------------------------------------------------
const program = ts.createProgram([path.join(root, 'src/native/ops.ts'), path.join(root, 'src/native/addon.ts')], {
  strict: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
});
const checker = program.getTypeChecker();

function interfaceMembers(file, name) {
  const sf = program.getSourceFile(path.join(root, file));
  let found;
  sf.forEachChild((n) => {
    if (ts.isInterfaceDeclaration(n) && n.name.text === name) found = n;
  });
  if (!found) throw new Error(`${file}: no interface ${name}`);
  const members = new Map();
  for (const m of found.members) {
    if (!m.name) continue;
    const params = ts.isMethodSignature(m)
      ? m.parameters.map((p) => ({
          name: p.name.getText(),
          optional: !!p.questionToken,
          rest: !!p.dotDotDotToken,
          type: p.type ? p.type.getText() : 'any',
          accepts: acceptsOf(p),
        }))
      : null;
    members.set(m.name.getText(), {params, node: m});
  }
  return members;
}

// What values a parameter's type admits: 'number', 'boolean', 'array' (number[]), 'typed' (typed arrays), 'null'.
function acceptsOf(p) {
  const t = checker.getTypeAtLocation(p);
  const parts = t.isUnion() ? t.types : [t];
  const out = new Set();
  for (const x of parts) {
    const s = checker.typeToString(x);
    if (x.flags & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral | ts.TypeFlags.Enum | ts.TypeFlags.EnumLiteral)) out.add('number');
    else if (x.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) out.add('boolean');
    else if (x.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) out.add('null');
    else if (/^(Big)?(Float|Int|Uint)(8|16|32|64)(Clamped)?Array\b/.test(s)) out.add('typed');
    else if (/\[\]$/.test(s)) out.add('array');
    else out.add(s);
  }
  return out;
}

// What a C++ reader needs the TypeScript type to admit.
function needs(readers) {
  const need = new Set();
  for (const r of readers) {
    if (NUMBER_READERS.has(r) || r === 'dtype') need.add('number');
    else if (r === 'flag') need.add('boolean');
    else if (r === 'dims' || r === 'window') need.add('array');
    else if (r === 'address') need.add('number');
    else if (BUFFER_READERS.has(r)) need.add('typed');
    else if (OBJECT_READERS[r]) for (const t of OBJECT_READERS[r]) need.add(t);
  }
  return need;
}

// ---- the op table -----------------------------------------------------------------------------------
const registered = new Map(); // op -> {Device?: reads, Host?: reads, files}
for (const file of walk(path.join(root, 'native/src'), ['.cc', '.cu'])) {
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/WM_OP\((\w+),\s*(Device|Host),\s*(\w+)\)\s*\{/g)) {
    const body = bodyAt(text, m.index + m[0].length - 1);
    const op = registered.get(m[1]) ?? {files: []};
    op[m[2]] = readsOf(body, m[3]);
    op.files.push(path.relative(root, file));
    registered.set(m[1], op);
  }
}

function checkSignature(where, name, params, bodies) {
  const positions = new Map();
  for (const [place, reads] of bodies) {
    for (const [i, r] of reads) {
      const p = positions.get(i) ?? {names: new Map(), readers: new Set(), optional: true, places: new Set()};
      for (const n of r.names) p.names.set(n, [...(p.names.get(n) ?? []), place]);
      for (const x of r.readers) p.readers.add(x);
      p.optional = p.optional && r.optional;
      p.places.add(place);
      positions.set(i, p);
    }
  }
  const last = Math.max(-1, ...positions.keys());
  const restAt = params.findIndex((p) => p.rest);
  if (restAt < 0 && params.length !== last + 1)
    problems.push(
      `${where}: ${name} takes ${params.length} parameters in TypeScript; its C++ reads positions up to ${last} (${last + 1} arguments)`,
    );
  for (const [i, p] of positions) {
    if (p.names.size > 1)
      problems.push(
        `${where}: ${name}: argument ${i} is read under different names (${[...p.names].map(([n, ps]) => `${n} in ${ps.join('/')}`).join(', ')})`,
      );
    const param = restAt >= 0 && i >= restAt ? params[restAt] : params[i];
    if (!param) continue;
    if (param.rest) continue;
    const cname = [...p.names.keys()][0];
    if (cname !== undefined && param.name !== cname)
      problems.push(`${where}: ${name}: parameter ${i} is "${param.name}" in TypeScript and "${cname}" in C++`);
    for (const n of needs(p.readers))
      if (!param.accepts.has(n) && !(n === 'number' && param.accepts.size === 0))
        problems.push(
          `${where}: ${name}: parameter ${i} (${param.name}: ${param.type}) must admit ${n === 'typed' ? 'a typed array' : n} (C++ reads it with ${[...p.readers].join(', ')})`,
        );
    const cOptional = p.optional && p.places.size > 0;
    if (cOptional !== param.optional && !(param.accepts.has('null') && cOptional))
      problems.push(
        `${where}: ${name}: parameter ${i} (${param.name}) is ${param.optional ? '' : 'not '}optional in TypeScript but ${cOptional ? '' : 'not '}in C++`,
      );
  }
}

const ops = interfaceMembers('src/native/ops.ts', 'NativeOps');
for (const [name, op] of registered) {
  const t = ops.get(name);
  if (!t) {
    problems.push(`${op.files.join(', ')}: op "${name}" is registered but not typed in NativeOps (src/native/ops.ts)`);
    continue;
  }
  const bodies = ['Device', 'Host'].filter((p) => op[p]).map((p) => [p, op[p]]);
  checkSignature('src/native/ops.ts', name, t.params, bodies);
}
for (const name of ops.keys())
  if (!registered.has(name)) problems.push(`src/native/ops.ts: NativeOps types "${name}", which no WM_OP registers`);

// ---- the hand-written bindings --------------------------------------------------------------------
const bindings = interfaceMembers('src/native/addon.ts', 'NativeBindings');
const classes = {
  NativeCommunicator: interfaceMembers('src/native/addon.ts', 'NativeCommunicator'),
  NativeHostMemory: interfaceMembers('src/native/handles.ts', 'NativeHostMemory'),
  NativeDeviceMemory: interfaceMembers('src/native/handles.ts', 'NativeDeviceMemory'),
  NativeGraph: interfaceMembers('src/native/handles.ts', 'NativeGraph'),
  NativeHostArray: interfaceMembers('src/native/handles.ts', 'NativeHostArray'),
  NativeTextColumns: interfaceMembers('src/native/handles.ts', 'NativeTextColumns'),
  NativeKgText: interfaceMembers('src/native/handles.ts', 'NativeKgText'),
};
const exported = new Set();
const memberNames = new Set();
const argReads = new Map(); // binding name -> reads
for (const file of walk(path.join(root, 'native/addon'), ['.cc'])) {
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/exports\.Set\("(\w+)"/g)) exported.add(m[1]);
  for (const m of text.matchAll(/\{"(\w+)",\s*\w+\}/g)) exported.add(m[1]); // the runtime's entry table
  for (const m of text.matchAll(/Instance(?:Method|Accessor)\("(\w+)"/g)) memberNames.add(m[1]);
  for (const m of text.matchAll(/Args (\w+)\(info,\s*"(\w+)"\);/g)) {
    // The reads that follow, up to the end of the enclosing lambda or function.
    const rest = text.slice(m.index);
    const end = rest.search(/\n\}\n|\n {2}\}\);\n/);
    argReads.set(m[2], {reads: readsOf(end > 0 ? rest.slice(0, end) : rest, m[1]), file: path.relative(root, file)});
  }
}
for (const name of bindings.keys())
  if (!exported.has(name)) problems.push(`src/native/addon.ts: NativeBindings types "${name}", which no binding exports`);
for (const name of exported)
  if (!bindings.has(name) && !registered.has(name))
    problems.push(`native/addon: "${name}" is exported but not typed in NativeBindings (src/native/addon.ts)`);
const classMembers = new Set(Object.values(classes).flatMap((c) => [...c.keys()]));
for (const name of memberNames)
  if (!classMembers.has(name))
    problems.push(`native/addon: class member "${name}" is not typed on any of ${Object.keys(classes).join(', ')}`);
for (const [cls, members] of Object.entries(classes))
  for (const name of members.keys())
    if (!memberNames.has(name)) problems.push(`src/native/addon.ts: ${cls} types "${name}", which no binding defines`);
for (const [name, {reads, file}] of argReads) {
  const t = bindings.get(name);
  if (!t || !t.params) continue;
  const named = new Map([...reads].filter(([, r]) => r.names.size > 0));
  for (const [i, r] of named) {
    const param = t.params[i];
    const cname = [...r.names][0];
    if (!param) problems.push(`${file}: ${name} reads argument ${i} (${cname}); NativeBindings types ${t.params.length} parameters`);
    else if (!param.rest && param.name !== cname)
      problems.push(`src/native/addon.ts: ${name}: parameter ${i} is "${param.name}" in TypeScript and "${cname}" in ${file}`);
  }
}

if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`\n${problems.length} disagreement(s) between the addon's C++ and its TypeScript types`);
  process.exit(1);
}
console.log(
  `op signatures: ${registered.size} table ops and ${exported.size - [...exported].filter((e) => registered.has(e)).length} bindings agree with their TypeScript types`,
);
