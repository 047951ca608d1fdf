import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE, reportError } from '../../src/cli/errors.js';
import { createOutput, WAIT_NOTE_AFTER_MS } from '../../src/cli/output.js';

function capture() {
  let text = '';
  return { write: (chunk: string) => void (text += chunk), text: () => text };
}

describe('reportError', () => {
  const SECRET = 'svc_live_REPORT_SECRET';

  it('prints message and code, scrubs known secrets, and shows a stack only with --debug', () => {
    const error = new Error(`connect failed for ${SECRET}`);
    const quiet = capture();
    expect(reportError(error, { debug: false, secrets: [SECRET], write: quiet.write })).toBe(EXIT_FAILURE);
    expect(quiet.text()).toBe('error: connect failed for [redacted] (internal_error)\n');
    const loud = capture();
    reportError(error, { debug: true, secrets: [SECRET], write: loud.write });
    expect(loud.text()).toMatch(/\n\s+at /);
    expect(loud.text()).not.toContain(SECRET);
  });

  it('maps config errors to exit code 2 and CLI errors to their own code', () => {
    const out = capture();
    const config = new ConfigError([
      { file: 'c.yaml', line: 3, column: 5, path: 'api.timeout', message: 'expected a duration' },
    ]);
    expect(reportError(config, { debug: false, secrets: [], write: out.write })).toBe(EXIT_USAGE);
    expect(out.text()).toBe(
      'c.yaml:3:5 api.timeout: expected a duration\nconfig is invalid (config_invalid): 1 problem\n',
    );
    const usage = capture();
    expect(
      reportError(new CliError('bad flag', 'usage', EXIT_USAGE), {
        debug: false,
        secrets: [],
        write: usage.write,
      }),
    ).toBe(2);
    const pending = capture();
    expect(
      reportError(new CliError('job orders failed: API unreachable', 'run_failed'), {
        debug: false,
        secrets: [],
        write: pending.write,
      }),
    ).toBe(1);
    expect(pending.text()).toBe('error: job orders failed: API unreachable (run_failed)\n');
  });
});

describe('progress output', () => {
  function stream(isTTY: boolean) {
    let text = '';
    const fake = {
      isTTY,
      write: (chunk: string) => ((text += chunk), true),
    } as unknown as NodeJS.WriteStream;
    return { fake, text: () => text };
  }

  it('shows progress on a terminal and stays quiet in a pipe', () => {
    for (const isTTY of [true, false]) {
      const out = stream(isTTY);
      const err = stream(isTTY);
      const output = createOutput(out.fake, err.fake);
      output.progress('page 3 of 10');
      output.done();
      output.line('result');
      expect(out.text()).toBe('result\n');
      expect(err.text().includes('page 3 of 10')).toBe(isTTY);
      expect(output.isTty).toBe(isTTY);
    }
  });

  describe('a wait', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('shows on a terminal at once, and in a pipe only once it has lasted', () => {
      vi.useFakeTimers();
      const terminal = stream(true);
      const shown = createOutput(stream(true).fake, terminal.fake);
      shown.waiting('queued for it as command #7, waiting...');
      expect(terminal.text()).toContain('command #7, waiting...');
      shown.done();

      const pipe = stream(false);
      const quick = createOutput(stream(false).fake, pipe.fake);
      quick.waiting('queued for it as command #8, waiting...');
      vi.advanceTimersByTime(WAIT_NOTE_AFTER_MS - 1);
      quick.done();
      vi.advanceTimersByTime(WAIT_NOTE_AFTER_MS);
      expect(pipe.text()).toBe('');

      const long = createOutput(stream(false).fake, pipe.fake);
      long.waiting('queued for it as command #9, waiting...');
      vi.advanceTimersByTime(WAIT_NOTE_AFTER_MS);
      expect(pipe.text()).toBe('queued for it as command #9, waiting... (15 s so far)\n');
      long.done();
    });
  });
});
