/** The prefixes an API key starts with: the environment it belongs to (the config checks them, the client acts on them). */
export const SANDBOX_KEY_PREFIX = 'svc_test_';
export const LIVE_KEY_PREFIX = 'svc_live_';
