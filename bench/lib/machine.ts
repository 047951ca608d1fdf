/** What the figures were measured on. */
import { cpus, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  memoryGiB: number;
  os: string;
  node: string;
  date: string;
  /** 1-minute load average when the run started: a hint that other work shared the machine. */
  loadAverageAtStart: number;
}

export function machineInfo(now: Date = new Date()): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCount: list.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    date: now.toISOString(),
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
