/**
 * The JSON body of a control API request, read and checked here alone: a body over the limit is a 413 stating it; a
 * body that is not JSON, not an object, with a field of the wrong type or one the route does not take, is a 400
 * naming the field and what the route takes. Nothing is queued for a body refused here.
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { readRawBody } from '../../webhooks/index.js';
import type { ControlReply } from './control-reply.js';

export const MAX_BODY_BYTES = 16 * 1024;

/** What a route's body must be, and the words that tell a caller what to send instead. */
export interface BodySpec<T> {
  readonly schema: z.ZodType<T>;
  readonly usage: string;
}

export type ParsedBody<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reply: ControlReply };

const usage = (detail: string): ControlReply => ({ status: 400, body: { error: 'usage', detail } });

/** The body as JSON ({} when empty), or the refusal of one too large, cut short or not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<ParsedBody<unknown>> {
  const raw = await readRawBody(req, MAX_BODY_BYTES);
  if (!raw.ok && raw.reason === 'too_large') {
    const detail = `the body is larger than the control API takes: at most ${MAX_BODY_BYTES} bytes; send a shorter one (a reason is a line, not a document)`;
    return { ok: false, reply: { status: 413, body: { error: 'body_too_large', detail } } };
  }
  if (!raw.ok) return { ok: false, reply: usage('the body did not arrive whole; send the request again') };
  const text = raw.body.toString('utf8').trim();
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      reply: usage(
        `the body is not valid JSON (${why}); send a JSON object, {} when the route takes no fields`,
      ),
    };
  }
}

/** The body as the route takes it, or a 400 naming each field that is wrong and what to send. */
export function parseBody<T>(spec: BodySpec<T>, body: unknown): ParsedBody<T> {
  const parsed = spec.schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => problemOf(issue, body));
  return { ok: false, reply: usage(`${problems.join('; ')}; send ${spec.usage}`) };
}

function problemOf(issue: z.core.$ZodIssue, body: unknown): string {
  const path = issue.path.map(String);
  const name = path.length === 0 ? 'the body' : path.join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `unknown field "${[...path, key].join('.')}"`).join('; ');
  }
  const value = valueAt(body, path);
  if (issue.code === 'invalid_type') {
    const expected = issue.expected === 'object' && path.length === 0 ? 'a JSON object' : a(issue.expected);
    if (value === undefined) return `${name}: required, ${expected}`;
    return `${name}: expected ${expected}, got ${kindOf(value)}`;
  }
  if (issue.code === 'too_small' && value === '') return `${name}: expected a non-empty string, got ""`;
  return `${name}: ${issue.message}`;
}

function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return a(Array.isArray(value) ? 'array' : typeof value);
}

const a = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const NO_FIELDS = z.strictObject({});

/** The body of a route that takes no fields. */
export const EMPTY_BODY: BodySpec<object> = {
  schema: NO_FIELDS,
  usage: '{} or no body: this route takes no fields',
};

export const CURSOR_RESET_BODY: BodySpec<object> = {
  schema: NO_FIELDS,
  usage:
    '{} or no body: a cursor reset takes no fields; it always starts the stream over from the beginning (the ledger still prevents double writes)',
};

const text = z.string().nullable().optional();

export const PAUSE_BODY = {
  schema: z.strictObject({ reason: text }),
  usage: '{"reason": "..."} (reason optional)',
} satisfies BodySpec<unknown>;

export const DEAD_LETTER_GROUP_BODY = {
  schema: z.strictObject({
    flow: z.string().min(1),
    reason: text,
    missing: z
      .strictObject({ table: z.string().min(1), key: z.string().min(1) })
      .nullable()
      .optional(),
  }),
  usage: '{"flow": "...", "reason": "..." (optional), "missing": {"table": "...", "key": "..."} (optional)}',
} satisfies BodySpec<unknown>;
