/** The sandbox's API clients: a full-scope key per demo account plus one key per negative case. */
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID } from '../http/types.js';
import type { PlanName } from '../http/types.js';
import type { ApiClient } from './state.js';
import { secretString } from './ids.js';

export const SUPPLIER_READ_SCOPES = [
  'supplier.buyers:read',
  'supplier.orders:read',
  'supplier.documents:read',
];
export const SUPPLIER_WRITE_SCOPES = [
  'supplier.buyers:write',
  'supplier.orders:write',
  'supplier.documents:write',
  'supplier.catalog:write',
];
export const BUYER_SCOPES = [
  'buyer.purchases:read',
  'buyer.expenses:read',
  'buyer.expenses:write',
  'buyer.accounting:read',
  'buyer.accounting:write',
  'buyer.sales:read',
  'buyer.sales:write',
];
const PLATFORM_SCOPES = ['webhooks:manage', 'events:read'];
export const ALL_SCOPES = [
  ...SUPPLIER_READ_SCOPES,
  ...SUPPLIER_WRITE_SCOPES,
  ...BUYER_SCOPES,
  'exports:manage',
  ...PLATFORM_SCOPES,
];

/** Loopback only: supplier write keys must carry an allowlist (contract part 5 rule 5). */
const LOOPBACK_ALLOWLIST = ['127.0.0.0/8', '::1/128'];
/** TEST-NET-3, which never matches a loopback caller. */
const FOREIGN_ALLOWLIST = ['203.0.113.0/24'];

const SUPPLIER = {
  accountId: DEMO_SUPPLIER_ACCOUNT_ID,
  accountType: 'supplier',
  accountName: 'Demo Supplier Ltd',
} as const;
const BUYER = {
  accountId: DEMO_BUYER_ACCOUNT_ID,
  accountType: 'buyer',
  accountName: 'Demo Restaurants Ltd',
} as const;

interface ClientTemplate {
  purpose: string;
  name: string;
  account: typeof SUPPLIER | typeof BUYER;
  scopes: string[];
  plan: ApiClient['plan'];
  ipAllowlist?: string[];
  suspended?: boolean;
  revoked?: boolean;
  expired?: boolean;
}

const TEMPLATES: ClientTemplate[] = [
  {
    purpose: 'supplier',
    name: 'Demo supplier ERP sync',
    account: SUPPLIER,
    scopes: [...SUPPLIER_READ_SCOPES, ...SUPPLIER_WRITE_SCOPES, ...PLATFORM_SCOPES],
    plan: 'supplier',
    ipAllowlist: LOOPBACK_ALLOWLIST,
  },
  {
    purpose: 'buyer',
    name: 'Demo buyer accounting sync',
    account: BUYER,
    scopes: [...BUYER_SCOPES, ...PLATFORM_SCOPES],
    plan: 'Pro',
  },
  {
    purpose: 'read_only',
    name: 'Read-only supplier reporting',
    account: SUPPLIER,
    scopes: SUPPLIER_READ_SCOPES,
    plan: 'supplier',
  },
  {
    purpose: 'buyer_read_only',
    name: 'Read-only buyer reporting',
    account: BUYER,
    scopes: ['buyer.purchases:read', 'buyer.expenses:read', 'buyer.accounting:read', 'buyer.sales:read'],
    plan: 'Pro',
  },
  {
    purpose: 'expired',
    name: 'Expired supplier key',
    account: SUPPLIER,
    scopes: SUPPLIER_READ_SCOPES,
    plan: 'supplier',
    expired: true,
  },
  {
    purpose: 'revoked',
    name: 'Revoked supplier key',
    account: SUPPLIER,
    scopes: SUPPLIER_READ_SCOPES,
    plan: 'supplier',
    revoked: true,
  },
  {
    purpose: 'suspended',
    name: 'Suspended supplier integration',
    account: SUPPLIER,
    scopes: SUPPLIER_READ_SCOPES,
    plan: 'supplier',
    suspended: true,
  },
  {
    purpose: 'basic_plan',
    name: 'Buyer on the Basic plan',
    account: BUYER,
    scopes: [...BUYER_SCOPES, ...PLATFORM_SCOPES],
    plan: 'Basic',
  },
  {
    purpose: 'enterprise',
    name: 'Buyer on the Enterprise plan',
    account: BUYER,
    scopes: [...BUYER_SCOPES, 'exports:manage', ...PLATFORM_SCOPES],
    plan: 'Enterprise',
  },
  {
    purpose: 'ip_restricted',
    name: 'Supplier write key outside its allowlist',
    account: SUPPLIER,
    scopes: [...SUPPLIER_READ_SCOPES, ...SUPPLIER_WRITE_SCOPES],
    plan: 'supplier',
    ipAllowlist: FOREIGN_ALLOWLIST,
  },
];

/**
 * Builds the client list. Keys are random per sandbox unless `seed` is given, in which case they are derived from it
 * (same seed, same keys). Client ids are stable names so tests and docs can refer to them.
 */
export function createDemoClients(seed: string | undefined, nowMs: number): ApiClient[] {
  return TEMPLATES.map((template) => {
    const key = `svc_test_${secretString(32, seed, `key:${template.purpose}`)}`;
    return {
      id: `cli_${template.purpose}`,
      name: template.name,
      accountId: template.account.accountId,
      accountType: template.account.accountType,
      accountName: template.account.accountName,
      key,
      keyId: `key_${template.purpose}`,
      scopes: template.scopes,
      plan: template.plan,
      ipAllowlist: template.ipAllowlist ?? [],
      branchIds: null,
      suspended: template.suspended ?? false,
      revoked: template.revoked ?? false,
      expiresAt: template.expired ? new Date(nowMs - 86_400_000).toISOString() : null,
      purpose: template.purpose,
    };
  });
}

export interface AccountIdentity {
  accountId: string;
  accountType: 'supplier' | 'buyer';
  accountName: string;
}

/** The demo key whose scopes, plan and allowlist an account created with that type and plan gets. */
const ACCOUNT_TEMPLATES: Readonly<Record<string, string>> = {
  'supplier supplier': 'supplier',
  'buyer Basic': 'basic_plan',
  'buyer Pro': 'buyer',
  'buyer Enterprise': 'enterprise',
};

/** The plans an account of the type can be created with, the first the default. */
export const ACCOUNT_PLANS: Readonly<Record<AccountIdentity['accountType'], readonly PlanName[]>> = {
  supplier: ['supplier'],
  buyer: ['Pro', 'Basic', 'Enterprise'],
};

/**
 * The full-scope client of an account created through the harness: the scopes, plan and allowlist of the demo key
 * of its type and plan, a key derived from `seed` (random without one).
 */
export function createAccountClient(
  account: AccountIdentity,
  plan: PlanName,
  clientId: string,
  seed: string | undefined,
): ApiClient {
  const purpose = ACCOUNT_TEMPLATES[`${account.accountType} ${plan}`];
  const template = TEMPLATES.find((candidate) => candidate.purpose === purpose);
  if (template === undefined) throw new Error(`no ${plan} plan for ${account.accountType} accounts`);
  return {
    id: clientId,
    name: `${account.accountName} sync`,
    ...account,
    key: `svc_test_${secretString(32, seed, `key:${clientId}`)}`,
    keyId: `key_${clientId.replace(/^cli_/, '')}`,
    scopes: [...template.scopes],
    plan: template.plan,
    ipAllowlist: [...(template.ipAllowlist ?? [])],
    branchIds: null,
    suspended: false,
    revoked: false,
    expiresAt: null,
    // Not the demo's purposes ('supplier', 'buyer'), which name the demo keys.
    purpose: `${account.accountType}:${account.accountId}`,
  };
}

/** The prefix shown in GET /me: enough to recognise a key, never enough to use it. */
export function keyPrefix(key: string): string {
  return key.slice(0, 13);
}
