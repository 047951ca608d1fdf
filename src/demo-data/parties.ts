/**
 * Who the demo supplier and buyer are, and the buyer's branches. The sandbox seeds its API data from these and the
 * demo ERP its customers and ship-to addresses, so that demo orders map without setup.
 */
export const DEMO_SUPPLIER_ID = 'sup_demo';
export const DEMO_SUPPLIER_NAME = 'Galil Fresh Foodservice Ltd';
export const DEMO_SUPPLIER_TAX_ID = '514203977';
export const DEMO_BUYER_ID = 'byr_demo';
export const DEMO_BUYER_NAME = 'Shulchan Restaurants Group Ltd';
export const DEMO_BUYER_TAX_ID = '515533210';
export const DEMO_CUSTOMER_NUMBER = 'C-10042';

/** One of the demo buyer's branches; its code is the demo ERP's ship-to code. */
export interface DemoBranch {
  readonly id: string;
  readonly name: string;
  readonly tax_id: string | null;
  readonly code: string;
  readonly region: string;
  readonly address: string;
  /** Weekdays the supplier delivers to the branch (sun..sat). */
  readonly delivery_days: readonly string[];
}

export const BRANCH_SEEDS: readonly DemoBranch[] = [
  {
    id: 'br_tlv',
    name: 'Tel Aviv Rothschild',
    tax_id: '515533210',
    code: 'TLV01',
    region: 'center',
    address: 'Rothschild Blvd 45, Tel Aviv',
    delivery_days: ['sun', 'tue', 'thu'],
  },
  {
    id: 'br_hrz',
    name: 'Herzliya Pituach',
    tax_id: '515533210',
    code: 'HRZ02',
    region: 'sharon',
    address: 'Abba Eban Blvd 10, Herzliya',
    delivery_days: ['mon', 'wed', 'fri'],
  },
  {
    id: 'br_jlm',
    name: 'Jerusalem Mamilla',
    tax_id: '516120934',
    code: 'JLM03',
    region: 'jerusalem',
    address: 'Mamilla Ave 7, Jerusalem',
    delivery_days: ['sun', 'wed'],
  },
  {
    id: 'br_hfa',
    name: 'Haifa Carmel Center',
    tax_id: '516120934',
    code: 'HFA04',
    region: 'north',
    address: 'HaNassi Blvd 122, Haifa',
    delivery_days: ['mon', 'thu'],
  },
  {
    id: 'br_bsh',
    name: "Be'er Sheva Grand Canyon",
    tax_id: '517004418',
    code: 'BSH05',
    region: 'south',
    address: 'Derech Hebron 21, Beer Sheva',
    delivery_days: ['tue', 'fri'],
  },
  {
    id: 'br_rnn',
    name: "Ra'anana Ahuza",
    tax_id: null,
    code: 'RNN06',
    region: 'sharon',
    address: 'Ahuza St 120, Raanana',
    delivery_days: ['sun', 'tue', 'thu'],
  },
];
