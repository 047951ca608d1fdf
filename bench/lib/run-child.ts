/**
 * Runs an entry in a child Node.js process and parses the JSON line it prints last: a TypeScript entry through the
 * tsx loader, a JavaScript one (a bundle from bundle-child.ts) with plain node.
 */
import { spawn } from 'node:child_process';

export function runJsonChild<T>(entry: string, args: unknown, timeoutMs: number): Promise<T> {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loader, entry, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      if (code !== 0) {
        const why = signal === null ? `exit code ${String(code)}` : `signal ${signal}`;
        reject(new Error(`${entry} ended with ${why}: ${stderr.trim().slice(-500)}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as T);
      } catch (error) {
        reject(new Error(`${entry} printed no result: ${String(error)}`));
      }
    });
  });
}
