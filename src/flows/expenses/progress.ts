/**
 * What the state store remembers about each source expense between runs and across crashes: the files uploaded
 * for it, the request last sent (body, key generation, whether the API answered it), the API expense id once
 * created, and whether the source was told.
 */
import type { StateStore } from '../../state/index.js';
import type { ExpenseBody } from './body.js';

export interface UploadedAttachment {
  fileId: string;
  sha256: string;
  uploadedAt: number;
}

/**
 * The request saved before it is sent. Until the API has answered it (`answered`), a later run sends this same body
 * under the same key, never a new one: the API then replays what it did (created, or refused) instead of creating a
 * second expense. The API remembers a key with its body for 24 hours, also when it refused the request, so each
 * distinct body gets the next key generation.
 */
export interface SentRequest {
  generation: number;
  bodyHash: string;
  body: ExpenseBody;
  sentAt: number;
  answered: boolean;
  /** 'job': sent under a key naming the job; absent on a request saved before keys did, sent again as it was. */
  keyScope?: 'job';
}

export interface ExpenseProgress {
  attachments?: Record<string, UploadedAttachment>;
  request?: SentRequest;
  apiId?: string;
  markedSent?: boolean;
}

function isProgress(value: unknown): value is ExpenseProgress {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ExpenseProgressStore {
  private readonly namespace: string;

  constructor(
    private readonly state: StateStore,
    private readonly job: string,
  ) {
    this.namespace = `${job}:expenses`;
  }

  get(ref: string): ExpenseProgress {
    const value = this.state.kv.get(this.namespace, ref);
    return isProgress(value) ? value : {};
  }

  private update(ref: string, change: (progress: ExpenseProgress) => ExpenseProgress): void {
    this.state.kv.set(this.namespace, ref, change(this.get(ref)));
  }

  recordAttachment(ref: string, path: string, attachment: UploadedAttachment): void {
    this.update(ref, (p) => ({ ...p, attachments: { ...p.attachments, [path]: attachment } }));
  }

  forgetAttachments(ref: string): void {
    this.update(ref, ({ attachments: _forgotten, ...rest }) => rest);
  }

  /** Saves the request before it is sent, under the key generation its body earns. */
  recordSending(ref: string, body: ExpenseBody, bodyHash: string, now: number): SentRequest {
    const previous = this.get(ref).request;
    const generation =
      previous === undefined
        ? 1
        : previous.bodyHash === bodyHash
          ? previous.generation
          : previous.generation + 1;
    const request: SentRequest = {
      generation,
      bodyHash,
      body,
      sentAt: now,
      answered: false,
      keyScope: 'job',
    };
    this.update(ref, (p) => ({ ...p, request }));
    return request;
  }

  /** The API refused the request: the next body may differ (and gets the next generation). */
  recordRefused(ref: string): void {
    this.update(ref, (p) =>
      p.request === undefined ? p : { ...p, request: { ...p.request, answered: true } },
    );
  }

  /**
   * The API id, and the expense's dead letter resolved, in one transaction: once the source is told, the expense is
   * no longer pending there and no later run would resolve the letter.
   */
  recordCreated(ref: string, apiId: string): void {
    this.state.transaction(() => {
      this.update(ref, (p) => ({
        ...p,
        apiId,
        ...(p.request === undefined ? {} : { request: { ...p.request, answered: true } }),
      }));
      this.state.deadLetters.resolve(this.job, ref);
    });
  }

  recordMarkedSent(ref: string): void {
    this.update(ref, (p) => ({ ...p, markedSent: true }));
  }
}
