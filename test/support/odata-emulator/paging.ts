/**
 * How each vendor's service pages a collection read.
 *
 * SAP Business One Service Layer ("Working with SAP Business One Service Layer", section on paging / query
 * options): answers at most its page size (20 by default) and adds a next link naming the $skip of the next page.
 *
 * Priority REST (PrioritySoftware.github.io, _restapi/1.introduction.md "Request/Response Format"): at most
 * MAXAPILINES results (2,000 by default; MAXFORMLINES before 25.1) and, the guide being silent about any link, no
 * next link: the rest is reached only with $top/$skip (_restapi/5.restQuery.md "Limiting the Number of Entities",
 * "Skipping Displayed Entities"), ordered with $orderby ("Sorting a Collection"). Choice where the guide is silent
 * (connectors/odata/README.md, "Emulator choices"): the cap applies after $skip/$top, to the page answered.
 */
import { ODataFault, type Entity } from './store.js';

export type ServerPaging =
  { readonly kind: 'links'; readonly pageSize: number } | { readonly kind: 'cap'; readonly maxLines: number };

export interface CollectionPage {
  readonly rows: Entity[];
  /** The $skip of the next page when the service sends a next link, else null. */
  readonly nextSkip: number | null;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const left = a === null || a === undefined ? '' : String(a);
  const right = b === null || b === undefined ? '' : String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `$orderby=A,B desc`: a stable sort by each property in turn. */
export function ordered(
  rows: readonly Entity[],
  orderBy: string | null,
  known: (name: string) => boolean,
): Entity[] {
  if (orderBy === null) return [...rows];
  const terms = orderBy.split(',').map((term) => {
    const [name = '', direction = 'asc'] = term.trim().split(/\s+/);
    if (!known(name)) throw new ODataFault(400, `$orderby: property ${name} is not known`);
    return { name, sign: direction.toLowerCase() === 'desc' ? -1 : 1 };
  });
  return [...rows].sort((a, b) => {
    for (const { name, sign } of terms) {
      const order = compare(a[name], b[name]) * sign;
      if (order !== 0) return order;
    }
    return 0;
  });
}

export function pageOf(
  rows: readonly Entity[],
  params: URLSearchParams,
  paging: ServerPaging,
): CollectionPage {
  const skip = Number(params.get('$skip') ?? '0');
  const top = params.get('$top');
  if (!Number.isInteger(skip) || skip < 0 || (top !== null && !/^\d+$/.test(top))) {
    throw new ODataFault(400, '$top and $skip take whole numbers of 0 or more');
  }
  const end = top === null ? rows.length : Math.min(rows.length, skip + Number(top));
  if (paging.kind === 'cap')
    return { rows: rows.slice(skip, Math.min(end, skip + paging.maxLines)), nextSkip: null };
  const page = rows.slice(skip, Math.min(end, skip + paging.pageSize));
  return { rows: page, nextSkip: skip + page.length >= end ? null : skip + page.length };
}
