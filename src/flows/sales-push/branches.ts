/** POS branch codes to API branch ids: the configured mapping table first, then the API's branch list. */
import type { ApiClient } from '../../client/index.js';

export class BranchResolver {
  #byCode: Map<string, string> | null = null;

  constructor(
    private readonly api: ApiClient,
    private readonly mapping: Readonly<Record<string, string>>,
  ) {}

  /** The API branch id for a code, or null when neither the mapping nor the API knows it. */
  async resolve(code: string, signal: AbortSignal): Promise<string | null> {
    const mapped = this.mapping[code];
    if (mapped !== undefined) return mapped;
    const byCode = await this.#load(signal);
    return byCode.get(code) ?? null;
  }

  async #load(signal: AbortSignal): Promise<Map<string, string>> {
    if (this.#byCode !== null) return this.#byCode;
    const branches: { id: string; code?: string | null | undefined }[] = [];
    for await (const branch of this.api.reference.branches({ limit: 200, signal }).items())
      branches.push(branch);
    // Ids first, so that a branch code always wins over an id spelled the same.
    const byCode = new Map<string, string>(branches.map((branch) => [branch.id, branch.id]));
    for (const branch of branches) {
      if (typeof branch.code === 'string' && branch.code !== '') byCode.set(branch.code, branch.id);
    }
    this.#byCode = byCode;
    return byCode;
  }
}
