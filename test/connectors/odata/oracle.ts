import { defaultParser } from '@odata/parser';
import type { SeenRequest } from '../../support/odata-emulator/index.js';

/**
 * An OData parser we did not write (@odata/parser, built from the OData v4 ABNF) reads every request the connector
 * sends: the resource path and query options of each URL, and each JSON body. The emulator has its own, smaller
 * reader; a URL it would accept but the grammar refuses (an unescaped quote in a $filter literal, say) is recorded
 * here and fails the test. The library's JSON grammar (the one for JSON inside URLs) takes no arrays of objects,
 * so a body is checked object by object: the entity without its collections, then each item of each collection.
 */
export class ODataOracle {
  readonly failures: string[] = [];
  readonly seen: SeenRequest[] = [];

  readonly inspect = (request: SeenRequest): void => {
    this.seen.push(request);
    const problem = this.#problem(request);
    if (problem !== null) this.failures.push(`${request.method} ${request.target}: ${problem}`);
  };

  /** The $filter values the connector sent, decoded, for checks of literal quoting. */
  filters(): string[] {
    return this.seen
      .map((request) => new URLSearchParams(request.target.split('?')[1] ?? '').get('$filter'))
      .filter((filter): filter is string => filter !== null);
  }

  #problem(request: SeenRequest): string | null {
    const target = decodeURIComponent(request.target);
    try {
      const uri = defaultParser.odataUri(`/${target}`);
      if (uri.next !== target.length + 1) return `the URL grammar stops at character ${uri.next}`;
    } catch (error) {
      return `the URL grammar refuses it (${error instanceof Error ? error.message : String(error)})`;
    }
    const contentType = request.body.trimStart().startsWith('{') ? 'json' : 'other';
    if (contentType !== 'json') return null;
    try {
      checkObject(JSON.parse(request.body) as Record<string, unknown>);
    } catch (error) {
      return `the JSON body is refused (${error instanceof Error ? error.message : String(error)})`;
    }
    return null;
  }
}

function checkObject(value: Record<string, unknown>): void {
  const flat: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (Array.isArray(child) && child.some((item) => typeof item === 'object' && item !== null)) {
      for (const item of child) checkObject(item as Record<string, unknown>);
    } else flat[key] = child;
  }
  const text = JSON.stringify(flat);
  const parsed = defaultParser.arrayOrObject(text);
  if (parsed.next !== text.length) throw new Error(`the JSON grammar stops at character ${parsed.next}`);
}
