/** Input typed at a terminal without echo (stdin in raw mode), for passwords; or piped in (`--password-stdin`). */
import { CommandError } from './errors.js';

/** A reader of hidden lines; lines typed or pasted ahead wait for the next question. */
export function hiddenInput(): (question: string) => Promise<string> {
  const stdin = process.stdin;
  let buffered = '';
  return (question) =>
    new Promise((resolve, reject) => {
      // raw before the question shows: an answer typed the moment it appears is never echoed
      stdin.setRawMode(true);
      process.stderr.write(question);
      stdin.setEncoding('utf8');
      const finish = (err: Error | undefined, line = '') => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
        process.stderr.write('\n');
        if (err) reject(err);
        else resolve(line);
      };
      const onData = (chunk: string) => {
        buffered += chunk;
        let line = '';
        for (let i = 0; i < buffered.length; i++) {
          const ch = buffered[i]!;
          if (ch === '\r' || ch === '\n') {
            buffered = buffered.slice(i + (buffered.startsWith('\r\n', i) ? 2 : 1));
            return finish(undefined, line);
          }
          // Ctrl-C or Ctrl-D
          if (ch === '\u0003' || ch === '\u0004') return finish(new CommandError('Cancelled.'));
          line = ch === '\u007f' || ch === '\b' ? line.slice(0, -1) : line + ch;
        }
      };
      stdin.on('data', onData);
      stdin.resume();
      if (buffered) onData('');
    });
}

/** The first line of stdin (piped, as `--password-stdin` takes it), without its line break. */
export async function stdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}
