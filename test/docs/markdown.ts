/** What the documentation tests read in a Markdown file: its fenced code blocks and its inline code. */

export interface FencedBlock {
  /** The word after the opening fence (`ts`, `yaml`, `sh`), or '' for none. */
  readonly lang: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/** The fenced (```) blocks of `markdown`, indented ones (in list items) included, their indentation removed. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[index] ?? '');
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !/^ *```\s*$/.test(lines[end] ?? '')) {
      body.push((lines[end] ?? '').slice(Math.min(indent, /^ */.exec(lines[end] ?? '')?.[0].length ?? 0)));
      end++;
    }
    if (end === lines.length) throw new Error(`the code block opened at line ${index + 1} is never closed`);
    blocks.push({ lang: open[2] ?? '', line: index + 1, code: body.join('\n') });
    index = end;
  }
  return blocks;
}

/** The text of every inline code span (`...`) outside fenced blocks. */
export function inlineCode(markdown: string): string[] {
  const prose = markdown.replace(/^ *```\w*\s*\n[\s\S]*?^ *```\s*$/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
}
