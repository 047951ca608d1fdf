/** Samples the resident set size of this process while a measured piece of work runs. */
import { memoryUsage } from 'node:process';

export interface RssSampler {
  stop(): { peakBytes: number; samples: number };
}

export function sampleRss(everyMs = 50): RssSampler {
  let peak = memoryUsage.rss();
  let samples = 1;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryUsage.rss());
    samples += 1;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, memoryUsage.rss());
      return { peakBytes: peak, samples: samples + 1 };
    },
  };
}
