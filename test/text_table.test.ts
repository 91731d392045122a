import {expect} from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import {readTextTable} from '../src/graph/text_table';
import type {TextColumnsSpec} from '../src/native/addon';
import {dataNative, graphNative} from '../src/native/domains';
import {CsrGraph} from '../src/graph/csr';
import {readEdgeList} from '../src/graph/edge_list';
import {seededRng} from '../src/util/random';
import {tempDir} from './temp_dirs';

/** Parses `text` fed in the given pieces; returns the columns as plain arrays, or the error. */
function parse(
  text: string,
  spec: TextColumnsSpec,
  cuts: number[] = [],
): {ids: number[][]; values: number[]; width: number; comments: string[]} | string {
  const p = dataNative().textColumns('t.txt', spec);
  const bytes = Buffer.from(text);
  try {
    let at = 0;
    for (const c of [...cuts, bytes.length]) {
      p.push(bytes.subarray(at, c));
      at = c;
    }
    p.finish();
  } catch (e) {
    return (e as Error).message;
  }
  const s = p.summary();
  const ids = Array.from({length: spec.ids ?? 0}, (_, k) => Array.from(p.ids(k).view()));
  return {ids, values: s.width > 0 ? Array.from(p.values().view()) : [], width: s.width, comments: s.comments};
}

describe('text tables parsed natively (wm/text_columns.h)', () => {
  it('edge lists: whitespace, commas, CRLF, comments, blank lines and extra fields; the same at every chunk boundary', () => {
    const text = '# directed=0 vertices=9\r\n0\t1\r\n\n  2 3 0.5\n4,5\n% note\n6 ,\t7\n8\t0';
    const want = {
      ids: [
        [0, 2, 4, 6, 8],
        [1, 3, 5, 7, 0],
      ],
      values: [],
      width: 0,
      comments: ['# directed=0 vertices=9', '% note'],
    };
    const spec = {ids: 2, comments: true, extraFields: true};
    expect(parse(text, spec)).to.deep.equal(want);
    for (let cut = 0; cut <= text.length; ++cut) expect(parse(text, spec, [cut]), `cut at ${cut}`).to.deep.equal(want);
    expect(parse(text, spec, [3, 4, 5, 17, 18, 30])).to.deep.equal(want);
    // Without extraFields the third field is refused, naming the line.
    expect(parse(text, {ids: 2, comments: true})).to.equal('t.txt:4: expected two vertex ids, got 3 fields in "2 3 0.5"');
  });

  it('rows of numbers: width from the first row, float32 or float64, nan only where allowed, blank rows', () => {
    expect(parse('1.5,2,-3e2\n4,5,6\n', {values: -1})).to.deep.equal({ids: [], values: [1.5, 2, -300, 4, 5, 6], width: 3, comments: []});
    expect(parse('0.1\nnan\n\n2\n', {values: 1, doubles: true, nanValues: true, blankRows: true})).to.deep.include({
      values: [0.1, NaN, NaN, 2],
    });
    expect(parse('1,2\n3\n', {values: -1})).to.equal('t.txt:2: 1 values where the first row had 2');
    expect(parse('1,2\n3,nan\n', {values: -1})).to.equal('t.txt:2: value 2 ("nan") is not a finite number');
    expect(parse('1\ninf\n', {values: 1, nanValues: true})).to.equal('t.txt:2: value 1 ("inf") is not a number (or nan)');
    expect(parse('1\n2x\n', {values: 1})).to.equal('t.txt:2: value 1 ("2x") is not a finite number');
    expect(parse('3 0.5 1\n1 2 3\n', {ids: 1, values: -1, idBound: 4})).to.deep.equal({
      ids: [[3, 1]],
      values: [0.5, 1, 2, 3],
      width: 2,
      comments: [],
    });
    expect(parse('3\n', {ids: 1, values: -1})).to.equal('t.txt:1: a vertex id and at least one value per line');
  });

  it('ids: decimal only, below 2^31 - 1 and the bound, errors at the right line after many parallel parts', () => {
    expect(parse('0 1\n1 x\n', {ids: 2})).to.equal('t.txt:2: expected two vertex ids (decimal integers from 0), got "1 x"');
    expect(parse('0 1\n1 -1\n', {ids: 2})).to.match(/t\.txt:2: expected two vertex ids/);
    expect(parse('0 1\n1 2147483647\n', {ids: 2})).to.equal('t.txt:2: vertex id 2147483647 is past 2147483646');
    expect(parse('0 1\n1 7\n', {ids: 2, idBound: 5})).to.equal('t.txt:2: vertex id "7" is not in [0, 5)');
    // Big enough to be cut into parts parsed on every thread: rows stay in file order, lines count right.
    const rng = seededRng(3);
    const lines = Array.from({length: 200_000}, () => `${Math.floor(rng() * 1e6)}\t${Math.floor(rng() * 1e6)}`);
    const text = lines.join('\n') + '\n';
    const got = parse(text, {ids: 2}, [1_000_001, 1_700_003]);
    if (typeof got === 'string') throw new Error(got);
    expect(got.ids[0]).to.deep.equal(lines.map((l) => Number(l.split('\t')[0])));
    expect(got.ids[1]).to.deep.equal(lines.map((l) => Number(l.split('\t')[1])));
    const bad = lines.slice();
    bad[123_456] = '5 five';
    expect(parse(bad.join('\n'), {ids: 2}, [999_999])).to.equal(
      't.txt:123457: expected two vertex ids (decimal integers from 0), got "5 five"',
    );
  });

  it('files, gzip or not, and an edge list built into CSR natively equal the script reader and builder', async () => {
    const dir = tempDir('wm-text-');
    try {
      const rng = seededRng(9);
      const n = 500;
      const lines = ['# vertices=510'];
      for (let i = 0; i < 3000; ++i) lines.push(`${Math.floor(rng() * n)}\t${Math.floor(rng() * n)}`); // loops and duplicates included
      const plain = path.join(dir, 'e.tsv');
      fs.writeFileSync(plain, lines.join('\n'));
      fs.writeFileSync(plain + '.gz', zlib.gzipSync(lines.join('\n')));
      const reference = CsrGraph.fromEdgesInScript(readEdgeList(plain), {symmetric: true});
      for (const file of [plain, plain + '.gz']) {
        const t = await readTextTable(file, {ids: 2, comments: true});
        expect(t.summary.rows).to.equal(3000);
        const g = graphNative().graphFromEdgeArrays(510, t.ids(0), t.ids(1), true);
        const view = CsrGraph.viewNative(g, file);
        g.free(); // the view keeps the columns
        expect(Array.from(view.rowPtr)).to.deep.equal(Array.from(reference.rowPtr));
        expect(Array.from(view.colIdx)).to.deep.equal(Array.from(reference.colIdx));
      }
      fs.writeFileSync(plain + '.gz', zlib.gzipSync(lines.join('\n')).subarray(0, 100));
      let message = '';
      await readTextTable(plain + '.gz', {ids: 2, comments: true}).catch((e: Error) => (message = e.message));
      expect(message).to.match(/e\.tsv\.gz: cannot inflate/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('host arrays: a view past 4 GiB is refused with the numbers (Node cannot make it), a view of a part is not', () => {
    const dir = tempDir('wm-view-');
    try {
      const file = path.join(dir, 'sparse.bin');
      const elements = 2 ** 30 + 16;
      fs.writeFileSync(file, Buffer.alloc(0));
      fs.truncateSync(file, elements * 4); // sparse: no disk, no memory
      const a = dataNative().hostArrayMap(file, 0, elements, 'int32');
      expect(() => a.view()).to.throw(/spans at most 4 GiB; this one would span 4294967360 bytes \(1073741840 int32 elements\)/);
      a.free();
      const part = dataNative()
        .hostArrayMap(file, 4 * 2 ** 29, 2 ** 29, 'int32')
        .view();
      expect([part.length, part[part.length - 1]]).to.deep.equal([2 ** 29, 0]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('host arrays: a column is taken once; a view outlives its handle; a viewed column given to a graph is copied, not moved', () => {
    const p = dataNative().textColumns('t', {ids: 2});
    p.push(Buffer.from('0 1\n1 2\n2 0\n'));
    p.finish();
    const src = p.ids(0);
    expect(() => p.ids(0)).to.throw(/id column 0 was taken already/);
    const view = src.view();
    const g = graphNative().graphFromEdgeArrays(3, src, p.ids(1), false);
    expect(Array.from(view)).to.deep.equal([0, 1, 2]); // still readable: the graph took a copy
    expect(() => src.view()).to.throw(/freed or taken/);
    expect(g.numEdges).to.equal(3);
    expect(() => graphNative().graphFromEdgeArrays(3, src, src, false)).to.throw(/src: the HostArray was freed or taken/);
    g.free();
  });
});
