/**
 * Real receivers for notification tests: an SMTP server (the smtp-server package, STARTTLS with a certificate from
 * a private CA, login required) whose messages are parsed by mailparser, and an HTTPS webhook receiver with a
 * certificate from the same CA. Neither was written by this project, except the receiver's few lines of glue.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { makeTestCa, type TestCa } from '../network/helpers/pki.js';

export const SMTP_USER = 'reports';
export const SMTP_PASSWORD = 'smtp-Pa55-very-secret';
export const WEBHOOK_TOKEN = 'tok-9f8e7d6c5b4a-secret';

export interface ReceivedMail {
  readonly raw: string;
  readonly parsed: ParsedMail;
  /** Whether the session had been upgraded to TLS when the message arrived. */
  readonly secure: boolean;
}

export interface SmtpReceiver {
  readonly port: number;
  readonly mails: ReceivedMail[];
  /** Sessions that logged in, to check verify() logs in without sending. */
  readonly logins: string[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(
  ca: TestCa,
  port = 0,
  /** Holds each answer back this long (a slow server), so a kill can land while a message is being handed over. */
  options: { answerDelayMs?: number } = {},
): Promise<SmtpReceiver> {
  const leaf = ca.issue('smtp');
  const mails: ReceivedMail[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    key: leaf.key,
    cert: leaf.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // Login only over TLS: a client that skips STARTTLS fails the test.
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) {
        logins.push(auth.username ?? '');
        callback(null, { user: auth.username });
      } else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        void simpleParser(Buffer.concat(chunks)).then((parsed) => {
          mails.push({ raw, parsed, secure: session.secure });
          const answer = `queued as m${mails.length}`;
          setTimeout(() => callback(null, answer), options.answerDelayMs ?? 0);
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    mails,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface WebhookReceiver {
  readonly port: number;
  readonly url: string;
  readonly bodies: Array<{ path: string; headers: Record<string, unknown>; body: unknown }>;
  /** Answers to give, first to last; 200 once they run out. */
  readonly answers: number[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(ca: TestCa, port = 0): Promise<WebhookReceiver> {
  const leaf = ca.issue('webhook');
  const bodies: WebhookReceiver['bodies'] = [];
  const answers: number[] = [];
  const server: Server = createServer({ key: leaf.key, cert: leaf.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = answers.shift() ?? 200;
      if (status === 200) {
        bodies.push({
          path: request.url ?? '',
          headers: request.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
        });
      }
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? '1' : 'busy');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `https://127.0.0.1:${actual}/hook/${WEBHOOK_TOKEN}`,
    bodies,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { makeTestCa };
