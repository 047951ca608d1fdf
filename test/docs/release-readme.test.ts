/**
 * The README of the release tarball (README.release.md, shipped as README.md by scripts/release.ts) speaks to the
 * person who unpacked it: its commands are the launchers' and exist in the CLI with the options they are given, and
 * what it and the guides shipped beside it link to is in the tarball. (test/deploy/release.test.ts builds a release
 * and finds this file as its README.md.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { SHIPPED } from '../../scripts/release.js';
import { buildProgram } from '../../src/cli/program.js';
import type { Output } from '../../src/cli/output.js';
import { fencedBlocks, inlineCode } from './markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = 'README.release.md';
const readme = readFileSync(join(ROOT, README), 'utf8');

/** The repository file a path of the release comes from, or undefined when the release does not ship it. */
function shippedFrom(releasePath: string): string | undefined {
  const path = releasePath.replace(/\/$/, '');
  for (const { from, to } of SHIPPED) {
    if (path === to || path.startsWith(`${to}/`)) {
      const source = from + path.slice(to.length);
      return existsSync(join(ROOT, source)) ? source : undefined;
    }
  }
  return undefined;
}

/** Relative link targets of a Markdown text, anchors removed. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/, ''));
}

const silent: Output = {
  line: () => {},
  note: () => {},
  progress: () => {},
  waiting: () => {},
  done: () => {},
  isTty: false,
};
const program = buildProgram({ output: silent, secrets: [], env: {} });

/** Why `args` (what follows the launcher) is not a command line the CLI takes, or null when it is. */
function cliProblem(args: readonly string[]): string | null {
  let command: Command = program;
  let index = 0;
  for (; index < args.length && !(args[index] ?? '').startsWith('-'); index++) {
    const sub = command.commands.find((candidate) => candidate.name() === args[index]);
    if (sub === undefined) break;
    command = sub;
  }
  if (command.commands.length > 0 && index < args.length && !(args[index] ?? '').startsWith('-')) {
    return `no command ${[...args.slice(0, index), args[index]].join(' ')}`;
  }
  const lineage: Command[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) lineage.push(at);
  let positional = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) {
      positional++;
      continue;
    }
    const name = arg.split('=')[0];
    if (name === '--help' || name === '-h') continue;
    const option = lineage
      .flatMap((at) => at.options)
      .find((candidate) => candidate.long === name || candidate.short === name);
    if (option === undefined) return `${command.name()} has no option ${name}`;
    if ((option.required || option.optional) && !arg.includes('=')) index++;
  }
  const required = command.registeredArguments.filter((argument) => argument.required).length;
  if (positional < required) return `${command.name()} needs ${required} argument(s), given ${positional}`;
  if (positional > command.registeredArguments.length) {
    return `${command.name()} takes ${command.registeredArguments.length} argument(s), given ${positional}`;
  }
  return null;
}

/** The supply-sync command lines of the README: in sh and bat blocks, and inline code starting with a launcher. */
function commandLines(): { text: string; args: string[] }[] {
  const launcher = /^(?:\S*[/\\])?supply-sync(?:\.cmd)?$/;
  const lines = [
    ...fencedBlocks(readme)
      .filter((block) => block.lang === 'sh' || block.lang === 'bat')
      .flatMap((block) => block.code.split('\n'))
      .map((line) => line.replace(/\s#.*$/, '')),
    ...inlineCode(readme).filter(
      (code) => /^(\.\/|\.\\)?supply-sync(\.cmd)? /.test(code) && !code.includes('<'),
    ),
  ];
  return lines
    .flatMap((line) => line.split('&&'))
    .map((segment) => segment.trim().split(/\s+/))
    .map((tokens) => (tokens[0] === 'sudo' ? tokens.slice(1) : tokens))
    .filter((tokens) => launcher.test(tokens[0] ?? ''))
    .map((tokens) => {
      const end = tokens.findIndex((token) => token === '>' || token === '|');
      return { text: tokens.join(' '), args: tokens.slice(1, end === -1 ? undefined : end) };
    });
}

describe('the release README', () => {
  it('is what the release ships as README.md, in place of the repository README', () => {
    expect(SHIPPED.filter((item) => item.to === 'README.md')).toEqual([{ from: README, to: 'README.md' }]);
    expect(SHIPPED.some((item) => item.from === 'README.md')).toBe(false);
  });

  it("starts from the unpacked release's launchers, not from a checkout's npm scripts", () => {
    const code = fencedBlocks(readme)
      .map((block) => block.code)
      .join('\n');
    expect(code).not.toMatch(/\bnpm\b/);
    expect(code).toMatch(/^\.\/supply-sync demo$/m);
    expect(code).toMatch(/^\.\/supply-sync config validate --config /m);
    expect(code).toMatch(/^\.\/supply-sync doctor --config /m);
    expect(readme).toContain('`supply-sync.cmd demo`');
  });

  it('gives only commands the CLI has, with options they take', () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const line of lines) expect(cliProblem(line.args), `${README}: ${line.text}`).toBeNull();
  });

  it('tells a command line the CLI does not take from one it does', () => {
    expect(cliProblem(['config', 'validate', '--config', 'x.yaml'])).toBeNull();
    expect(cliProblem(['sync', 'orders', '--dry-run'])).toBeNull();
    expect(cliProblem(['config', 'check', '--config', 'x.yaml'])).toBe('no command config check');
    expect(cliProblem(['status', '--dry-run'])).toBe('status has no option --dry-run');
    expect(cliProblem(['doctor', '--dry-run'])).toBe('doctor has no option --dry-run');
    expect(cliProblem(['sync', '--dry-run'])).toBe('sync needs 1 argument(s), given 0');
    expect(cliProblem(['start'])).toBe('no command start');
  });

  it('names and links only files the release holds', () => {
    const named = inlineCode(readme).filter((code) => /^(bin|config|deploy|docs)\/[\w./-]*$/.test(code));
    expect(named.length).toBeGreaterThan(5);
    for (const path of [...named, ...relativeLinks(readme)]) {
      expect(shippedFrom(path), `${README} names ${path}, which the release does not hold`).toBeDefined();
    }
    expect(shippedFrom('docs/testing.md')).toBeUndefined();
  });

  it('ships the guides it links to with every file they link to', () => {
    const guides = SHIPPED.filter((item) => item.to.endsWith('.md'));
    expect(guides.map((item) => item.to)).toEqual(
      expect.arrayContaining(['README.md', 'docs/deploy.md', 'docs/operations.md']),
    );
    for (const { from, to } of guides) {
      for (const link of relativeLinks(readFileSync(join(ROOT, from), 'utf8'))) {
        const target = posix.normalize(posix.join(posix.dirname(to), link));
        expect(
          shippedFrom(target),
          `${from} links to ${link}, which the release does not hold`,
        ).toBeDefined();
      }
    }
  });
});
