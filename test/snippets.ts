// The ```js blocks of a Markdown document (the README, docs/api.md): what the snippet tests run.

/** A document's ```js blocks, with the line each starts on. */
export function readmeSnippets(markdown: string): {line: number; code: string}[] {
  const out: {line: number; code: string}[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; ++i) {
    if (lines[i].trim() !== '```js') continue;
    const start = i + 1;
    let j = start;
    while (j < lines.length && lines[j].trim() !== '```') ++j;
    out.push({line: start + 1, code: lines.slice(start, j).join('\n') + '\n'});
    i = j;
  }
  return out;
}
