/**
 * CPU profiles of a measured window, by the V8 sampling profiler that `node --cpu-prof` uses, started and
 * stopped through node:inspector so that setup (seeding, bundling) stays out of the profile. The .cpuprofile
 * file opens in Chrome DevTools; summarizeProfile() gives the self time per category in percent.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Microseconds, on the clock of the profiled process. */
  startTime?: number;
  endTime?: number;
}

export interface Profiler {
  stop(file: string): Promise<CpuProfile>;
}

export async function startProfiler(samplingIntervalUs = 200): Promise<Profiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
      session.disconnect();
      await writeFile(file, JSON.stringify(profile));
      return profile;
    },
  };
}

/** A named category of samples: the pattern is tested against "<functionName> <url>" of a frame. */
export interface CategoryRule {
  category: string;
  pattern: RegExp;
}

export interface ProfileShare {
  category: string;
  percent: number;
  ms: number;
}

/**
 * Self time per category, in percent of the profiled window. A sample counts for the first rule matching its
 * own frame or, failing that, the nearest caller frame that matches (so a native call such as JSON.parse or a
 * SQLite step counts for the code that made it); samples matching nothing are "other".
 */
export function summarizeProfile(profile: CpuProfile, rules: readonly CategoryRule[]): ProfileShare[] {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const categoryOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = categoryOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    let category = 'other';
    if (node !== undefined) {
      const label = `${node.callFrame.functionName} ${node.callFrame.url}`;
      const rule = rules.find((r) => r.pattern.test(label));
      if (rule !== undefined) category = rule.category;
      else {
        const up = parent.get(id);
        if (up !== undefined) category = classify(up);
      }
    }
    categoryOf.set(id, category);
    return category;
  };
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    all += us;
    const category = classify(id);
    totals.set(category, (totals.get(category) ?? 0) + us);
  });
  return [...totals]
    .map(([category, us]) => ({ category, percent: all > 0 ? (100 * us) / all : 0, ms: us / 1000 }))
    .sort((a, b) => b.ms - a.ms);
}

/** Self time per function ("name file:line"), the top `limit`, for finding what a category hides. */
export function topFunctions(profile: CpuProfile, limit: number): ProfileShare[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    all += us;
    const frame = byId.get(id)?.callFrame;
    const url = (frame?.url ?? '').replace(/^.*\/(node_modules|src|bench|connectors)\//, '$1/');
    const key = `${frame?.functionName || '(anonymous)'} ${url}:${frame?.lineNumber ?? -1}`;
    totals.set(key, (totals.get(key) ?? 0) + us);
  });
  return [...totals]
    .map(([category, us]) => ({ category, percent: all > 0 ? (100 * us) / all : 0, ms: us / 1000 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit);
}

/**
 * The samples taken from `fromMs` to `toMs` after the profile started (a `node --cpu-prof` profile starts with the
 * process), so a whole-process profile can be cut to a measured window.
 */
export function profileWindow(profile: CpuProfile, fromMs: number, toMs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let atUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    atUs += delta;
    if (atUs < fromMs * 1000 || atUs > toMs * 1000) return;
    samples.push(id);
    timeDeltas.push(delta);
  });
  return { nodes: profile.nodes, samples, timeDeltas };
}
