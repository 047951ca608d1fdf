import { describe, expect, it } from 'vitest';
import {
  ClientConfigError,
  createApiClient,
  environmentOfBaseUrl,
  environmentOfKey,
} from '../../src/client/index.js';
import { LIVE_KEY, TEST_KEY } from './helpers/fixtures.js';

describe('environment rules', () => {
  it('reads the environment from the key prefix and refuses other keys', () => {
    expect(environmentOfKey(TEST_KEY)).toBe('sandbox');
    expect(environmentOfKey(LIVE_KEY)).toBe('live');
    expect(() => environmentOfKey('sk_live_123456789')).toThrow(ClientConfigError);
  });

  it('treats loopback as sandbox, configured sandbox URLs as sandbox, and anything else as live', () => {
    expect(environmentOfBaseUrl('http://127.0.0.1:4010/v2')).toBe('sandbox');
    expect(environmentOfBaseUrl('http://localhost:4010/v2')).toBe('sandbox');
    expect(environmentOfBaseUrl('http://[::1]:4010/v2')).toBe('sandbox');
    expect(environmentOfBaseUrl('https://api.example.com/v2')).toBe('live');
    const rule = { sandboxBaseUrls: ['https://sandbox.example.com/v2'] };
    expect(environmentOfBaseUrl('https://sandbox.example.com/v2', rule)).toBe('sandbox');
    expect(environmentOfBaseUrl('https://sandbox.example.com/v2/', rule)).toBe('sandbox');
    expect(environmentOfBaseUrl('https://sandbox.example.com.evil.test/v2', rule)).toBe('live');
    expect(environmentOfBaseUrl('http://127.0.0.1:4010/v2', { environment: 'live' })).toBe('live');
  });

  it('refuses a test key against a live base URL without putting the key in the message', () => {
    const attempt = () => createApiClient({ baseUrl: 'https://api.example.com/v2', apiKey: TEST_KEY });
    expect(attempt).toThrow(ClientConfigError);
    expect(attempt).toThrow(/refusing to send a sandbox key to https:\/\/api\.example\.com/);
    try {
      attempt();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(TEST_KEY);
      expect((error as ClientConfigError).code).toBe('environment_mismatch');
    }
  });

  it('refuses a live key against a sandbox (loopback or configured) base URL', () => {
    expect(() => createApiClient({ baseUrl: 'http://127.0.0.1:4010/v2', apiKey: LIVE_KEY })).toThrow(
      /refusing to send a live key/,
    );
    expect(() =>
      createApiClient({
        baseUrl: 'https://sandbox.example.com/v2',
        apiKey: LIVE_KEY,
        sandboxBaseUrls: ['https://sandbox.example.com/v2'],
      }),
    ).toThrow(ClientConfigError);
  });

  it('accepts matching pairs', async () => {
    const sandbox = createApiClient({ baseUrl: 'http://127.0.0.1:4010/v2', apiKey: TEST_KEY });
    const live = createApiClient({ baseUrl: 'https://api.example.com/v2', apiKey: LIVE_KEY });
    expect(sandbox.environment).toBe('sandbox');
    expect(live.environment).toBe('live');
    await sandbox.close();
    await live.close();
  });
});
