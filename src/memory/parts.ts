// Framing for collectives over the bootstrap: one blob per destination rank,
// packed as [count][lengths...][bytes...].
export function packParts(parts: Uint8Array[]): Uint8Array {
  const head = new Float64Array(parts.length + 1);
  head[0] = parts.length;
  parts.forEach((p, i) => (head[i + 1] = p.byteLength));
  const total = head.byteLength + parts.reduce((a, p) => a + p.byteLength, 0);
  const out = new Uint8Array(total);
  out.set(new Uint8Array(head.buffer), 0);
  let at = head.byteLength;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

export function unpackParts(blob: Uint8Array): Uint8Array[] {
  const copy = blob.slice();
  const count = new Float64Array(copy.buffer, 0, 1)[0];
  const lens = new Float64Array(copy.buffer, 8, count);
  const parts: Uint8Array[] = [];
  let at = 8 * (count + 1);
  for (let i = 0; i < count; ++i) {
    parts.push(copy.subarray(at, at + lens[i]));
    at += lens[i];
  }
  return parts;
}
