/**
 * The config key a person changes to replace a refused API key, named as they wrote it: `api.api_key` or
 * `api.api_key_file`, and, for a company of an office, with the file that sets it (the company file or the office
 * file).
 */
import type { ConfigSource } from './source.js';

const API_KEY = ['api', 'api_key'] as const;

export interface ApiKeySetting {
  /** `api.api_key` or `api.api_key_file`. */
  readonly key: string;
  /** The file that sets it. */
  readonly file: string;
}

export function apiKeySetting(source: ConfigSource): ApiKeySetting {
  const fromFile = source.fromFiles.some(
    (path) => path.length === API_KEY.length && path.every((segment, i) => segment === API_KEY[i]),
  );
  return {
    key: fromFile ? 'api.api_key_file' : 'api.api_key',
    file: source.locate(API_KEY)?.file ?? source.file,
  };
}

/** How messages name the setting: a company's names its file too, since an office has several. */
export function apiKeySettingName(loaded: {
  readonly apiKey: ApiKeySetting;
  readonly company?: unknown;
}): string {
  return loaded.company === undefined ? loaded.apiKey.key : `${loaded.apiKey.key} in ${loaded.apiKey.file}`;
}
