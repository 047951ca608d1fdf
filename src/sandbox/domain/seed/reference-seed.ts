/** Writes the reference data and the supplier's linked buyers into the state. */
import type { DomainEnv } from '../env.js';
import type { SupplierBuyer } from '../types.js';
import { STANDARD_PRICE_LIST_ID } from './catalog.js';
import {
  BRANCH_SEEDS,
  DEMO_BUYER_ID,
  DEMO_BUYER_NAME,
  DEMO_BUYER_TAX_ID,
  DEMO_CUSTOMER_NUMBER,
} from '../../../demo-data/index.js';
import {
  ACCOUNT_MAPPINGS,
  EXPENSE_ACCOUNTS,
  EXPENSE_CATEGORIES,
  PURCHASE_TYPES,
  VENDOR_SEEDS,
} from './reference.js';

export function seedReference(env: DomainEnv, at: string): void {
  const { state } = env;
  for (const branch of BRANCH_SEEDS) {
    const { delivery_days: _days, ...fields } = branch;
    state.branches[branch.id] = { ...fields, active: true, updated_at: at };
  }
  state.purchaseTypes = PURCHASE_TYPES.map((type) => ({ ...type }));
  state.expenseCategories = EXPENSE_CATEGORIES.map((category) => ({ ...category }));
  state.expenseAccounts = EXPENSE_ACCOUNTS.map((account) => ({ ...account }));
  state.accountMappings = ACCOUNT_MAPPINGS.map((mapping) => ({ ...mapping }));
  for (const vendor of VENDOR_SEEDS) state.vendors[vendor.id] = { ...vendor, created_at: at, updated_at: at };
}

export function seedSupplierBuyers(env: DomainEnv, at: string): void {
  const demo: SupplierBuyer = {
    id: DEMO_BUYER_ID,
    name: DEMO_BUYER_NAME,
    tax_id: DEMO_BUYER_TAX_ID,
    status: 'active',
    customer_number: DEMO_CUSTOMER_NUMBER,
    erp_ref: null,
    branches: BRANCH_SEEDS.map((branch) => ({
      id: branch.id,
      name: branch.name,
      tax_id: branch.tax_id,
      address: branch.address,
      delivery_days: [...branch.delivery_days],
    })),
    min_order: '500.00',
    payment_terms: 'net_60',
    price_list_id: STANDARD_PRICE_LIST_ID,
    created_at: at,
    updated_at: at,
  };
  const others: SupplierBuyer[] = [
    {
      ...demo,
      id: 'byr_cafe_nord',
      name: 'Cafe Nord Ltd',
      tax_id: '514488120',
      customer_number: 'C-10077',
      branches: [
        {
          id: 'brn_cafe_nord_1',
          name: 'Cafe Nord Haifa',
          tax_id: null,
          address: 'Masada St 3, Haifa',
          delivery_days: ['sun', 'wed'],
        },
      ],
      min_order: '300.00',
      payment_terms: 'net_30',
      price_list_id: null,
    },
    {
      ...demo,
      id: 'byr_hummus_bar',
      name: 'Hummus Bar Jaffa',
      tax_id: '512200981',
      status: 'inactive',
      customer_number: null,
      branches: [],
      min_order: null,
      payment_terms: null,
      price_list_id: null,
    },
  ];
  for (const buyer of [demo, ...others]) env.state.supplierBuyers[buyer.id] = buyer;
  const list = env.state.priceLists[STANDARD_PRICE_LIST_ID];
  if (list) list.buyer_ids = [DEMO_BUYER_ID];
}
