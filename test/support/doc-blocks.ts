/** The code blocks of a markdown page, and what its curl examples say they answer. */
import fs from 'node:fs';
import path from 'node:path';

export interface CodeBlock {
  lang: string;
  text: string;
  /** The line of the opening fence (0-based). */
  line: number;
  /**
   * Marked, on the line before its fence, as an excerpt of a larger file or as a command's output
   * (`<!-- excerpt: … -->`, `<!-- output: … -->`): shown, not compiled.
   */
  excerpt: boolean;
}

/** The docs pages (`docs/*.md`), by name. */
export const docsPages = (root: string): string[] => fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort();

export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    const before = lines.slice(0, i).reverse().find((l) => l.trim() !== '') ?? '';
    blocks.push({ lang: open[1]!, text: lines.slice(i + 1, end).join('\n'), line: i, excerpt: /^<!-- (excerpt|output)\b/.test(before) });
    i = end;
  }
  return blocks;
}

export interface CurlExpectation {
  command: string;
  /** The status its comment names (`# → 400 …`, `# HTTP/1.1 304 …`); none: a 2xx. */
  status?: number;
}

/** Each curl call of a shell script, with the status its comment (same line, or the lines below it) names. */
export function curlExpectations(script: string): CurlExpectation[] {
  const found: CurlExpectation[] = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!/^\s*(curl\b|\w+=\$\(curl\b)/.test(line)) continue;
    let command = line;
    while (command.trimEnd().endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
    const comments = [/#\s*(.*)$/.exec(command.split('\n').at(-1)!.replace(/'[^']*'|"[^"]*"/g, ''))?.[1] ?? ''];
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith('#'); j++) comments.push(lines[j]!);
    const status = /(?:→|HTTP\/1\.1)\s*(\d{3})\b/.exec(comments.join('\n'))?.[1];
    found.push({ command: command.split('\n')[0]!.trim(), ...(status ? { status: Number(status) } : {}) });
  }
  return found;
}
