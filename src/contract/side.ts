/** Which account an API key speaks for: every call, flow and key is on one side. */
export type ApiSide = 'supplier' | 'buyer';
