/**
 * What the state file remembers about each ERP document between runs and across crashes: the attachment
 * uploaded for it (id, sha256, when), the API document id once created, and whether the ERP was told.
 */
import type { StateStore } from '../../state/index.js';

export interface UploadedAttachment {
  fileId: string;
  sha256: string;
  uploadedAt: number;
}

/**
 * The API remembers an Idempotency-Key with its body for 24 hours, also when it refused the request: a changed
 * body (the ERP fixed the document, the file was uploaded again) under the same key would be answered 409
 * idempotency_conflict. So each distinct body gets the next key generation; the same body keeps its key.
 */
export interface KeyGeneration {
  generation: number;
  bodyHash: string;
}

export interface DocumentProgress {
  attachment?: UploadedAttachment;
  key?: KeyGeneration;
  apiId?: string;
  markedSent?: boolean;
}

/** Documents are keyed by type and number, the same pair the API treats as unique per buyer. */
export function documentKey(type: string, number: string): string {
  return `${type}:${number}`;
}

function isProgress(value: unknown): value is DocumentProgress {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ProgressStore {
  private readonly namespace: string;
  private readonly byApiId: string;

  constructor(
    private readonly state: StateStore,
    job: string,
  ) {
    this.namespace = `${job}:documents`;
    this.byApiId = `${job}:document-ids`;
  }

  get(key: string): DocumentProgress {
    const value = this.state.kv.get(this.namespace, key);
    return isProgress(value) ? value : {};
  }

  recordAttachment(key: string, attachment: UploadedAttachment): void {
    this.state.kv.set(this.namespace, key, { ...this.get(key), attachment });
  }

  forgetAttachment(key: string): void {
    const progress = this.get(key);
    delete progress.attachment;
    this.state.kv.set(this.namespace, key, progress);
  }

  /** The key generation for this body, saved before the request is sent. */
  keyGenerationFor(key: string, bodyHash: string): number {
    const progress = this.get(key);
    if (progress.key?.bodyHash === bodyHash) return progress.key.generation;
    const generation = (progress.key?.generation ?? 0) + 1;
    this.state.kv.set(this.namespace, key, { ...progress, key: { generation, bodyHash } });
    return generation;
  }

  /** The API id and its reverse index in one transaction: the reaction pull looks documents up by API id. */
  recordCreated(key: string, apiId: string): void {
    this.state.transaction(() => {
      this.state.kv.set(this.namespace, key, { ...this.get(key), apiId });
      this.state.kv.set(this.byApiId, apiId, key);
    });
  }

  recordMarkedSent(key: string): void {
    this.state.kv.set(this.namespace, key, { ...this.get(key), markedSent: true });
  }

  /** Whether this job created the API document `apiId`. */
  isOurs(apiId: string): boolean {
    return typeof this.state.kv.get(this.byApiId, apiId) === 'string';
  }
}
