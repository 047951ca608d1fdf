/** Writes bench/results.md (for people) and bench/out/results.json (for tools) from one run's results. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { MachineInfo } from './machine.js';
import { formatNumber } from './stats.js';
import type { BenchResult } from './types.js';

export interface RunReport {
  machine: MachineInfo;
  quick: boolean;
  only: string[] | null;
  results: BenchResult[];
  /** Free text about the conditions of the run (for example other work on the machine). */
  conditions: string[];
  /** Markdown kept with the results (the profile summaries of bench/profiles.md), appended as it is. */
  appendix?: string;
}

function measureText(value: number, unit: string): string {
  return `${formatNumber(value)} ${unit}`.trim();
}

function verdict(result: BenchResult): string {
  if (result.status === 'not_measured') return 'not measured';
  return result.checks.every((check) => check.pass) ? 'pass' : 'miss';
}

export function renderMarkdown(report: RunReport): string {
  const { machine } = report;
  const lines: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts). Each figure is compared with a baseline measured in the same run',
    'on the same machine, so the ratio stays meaningful on a slower or busier machine; the targets are those of',
    'the project plan for a 2-core machine.',
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpuModel} x ${machine.cpuCount}`,
    `- Memory: ${machine.memoryGiB} GiB`,
    `- OS: ${machine.os}`,
    `- Node.js: ${machine.node}`,
    `- Date: ${machine.date}`,
    `- Load average (1 min) at start: ${machine.loadAverageAtStart}`,
    `- Mode: ${report.quick ? 'quick (short durations; indicative only)' : 'full'}${
      report.only ? `, only ${report.only.join(', ')}` : ''
    }`,
    ...report.conditions.map((condition) => `- ${condition}`),
    '',
    '## Summary',
    '',
    '| Benchmark | Figure | Baseline (same run) | Ratio | Targets | Result |',
    '|---|---|---|---|---|---|',
  ];
  for (const result of report.results) {
    if (result.status === 'not_measured') {
      lines.push(
        `| ${result.title} | not measured: ${result.reason} | | | ${result.target} | not measured |`,
      );
      continue;
    }
    const targets = result.checks
      .map((check) => `${check.target}: ${measureText(check.value, check.unit)} ${check.pass ? '✓' : '✗'}`)
      .join('<br>');
    lines.push(
      `| ${result.title} | ${result.figure.label}: ${measureText(result.figure.value, result.figure.unit)} | ` +
        `${result.baseline.label}: ${measureText(result.baseline.value, result.baseline.unit)} | ` +
        `${formatNumber(result.ratio)} | ${targets} | ${verdict(result)} |`,
    );
  }
  lines.push('', '## Details', '');
  for (const result of report.results) {
    lines.push(`### ${result.title} (\`${result.name}\`)`, '');
    if (result.status === 'not_measured') {
      lines.push(`Not measured: ${result.reason}`, '', `Target: ${result.target}`, '');
      continue;
    }
    for (const [key, value] of Object.entries(result.details)) {
      lines.push(`- ${key}: ${typeof value === 'number' ? formatNumber(value) : value}`);
    }
    lines.push(`- took ${formatNumber(result.durationMs / 1000)} s`);
    for (const note of result.notes) lines.push('', note);
    lines.push('');
  }
  if (report.appendix !== undefined) lines.push(report.appendix.trim(), '');
  return `${lines.join('\n')}\n`;
}

export async function writeReport(report: RunReport, markdownPath: string, jsonPath: string): Promise<void> {
  await mkdir(dirname(jsonPath), { recursive: true });
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(markdownPath, renderMarkdown(report));
}
