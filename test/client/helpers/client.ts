import { Agent } from 'undici';
import {
  createApiClient,
  type ApiCallEvent,
  type ApiClient,
  type ApiClientOptions,
} from '../../../src/client/index.js';
import { FakeClock } from './fake-clock.js';
import { TEST_KEY } from './fixtures.js';
import type { ScriptServer } from './script-server.js';

export interface TestClient {
  api: ApiClient;
  clock: FakeClock;
  calls: ApiCallEvent[];
  close(): Promise<void>;
}

/** A client on the scripted server with a fake clock, fixed jitter and its own Agent. */
export function makeClient(server: ScriptServer, overrides: Partial<ApiClientOptions> = {}): TestClient {
  const clock = new FakeClock();
  const calls: ApiCallEvent[] = [];
  const agent = new Agent({ keepAliveTimeout: 1000, connections: 16 });
  const api = createApiClient({
    baseUrl: server.baseUrl,
    apiKey: TEST_KEY,
    dispatcher: agent,
    clock,
    random: () => 0.5,
    onCall: (event) => calls.push(event),
    ...overrides,
  });
  return {
    api,
    clock,
    calls,
    close: async () => {
      await api.close();
      await agent.close();
    },
  };
}
