/** multipart/mixed $batch bodies (OData v4 part 1, section 11.7): the emulator's reading and writing of them. */

export interface BatchRequest {
  readonly method: string;
  readonly path: string;
  readonly contentId: string | null;
  readonly body: string;
}

export interface BatchAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly contentId: string | null;
}

function boundaryOf(contentType: string): string | null {
  return /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2] ?? null;
}

function parts(body: string, boundary: string): string[] {
  const pieces = body.split(`--${boundary}`);
  return pieces
    .slice(1)
    .filter((piece) => !piece.startsWith('--'))
    .map((piece) => piece.replace(/^\r?\n/, ''));
}

function splitHead(text: string): { head: string; rest: string } {
  const blank = /\r?\n\r?\n/.exec(text);
  return blank === null
    ? { head: text, rest: '' }
    : { head: text.slice(0, blank.index), rest: text.slice(blank.index + blank[0].length) };
}

/** The change sets of a batch (a request outside any change set is a change set of its own). */
export function readBatch(body: string, contentType: string): BatchRequest[][] {
  const boundary = boundaryOf(contentType);
  if (boundary === null) throw new Error('$batch: the Content-Type has no boundary');
  return parts(body, boundary).map((part) => {
    const { head, rest } = splitHead(part);
    const inner = boundaryOf(/content-type:\s*(multipart\/mixed[^\r\n]*)/i.exec(head)?.[1] ?? '');
    return inner === null
      ? [readRequest(head, rest)]
      : parts(rest, inner).map((request) => readRequest(...headAndRest(request)));
  });
}

function headAndRest(part: string): [string, string] {
  const { head, rest } = splitHead(part);
  return [head, rest];
}

function readRequest(partHead: string, httpText: string): BatchRequest {
  const { head, rest } = splitHead(httpText);
  const requestLine = /^(GET|POST|PATCH|PUT|DELETE) (\S+) HTTP\/1\.1/m.exec(head);
  if (requestLine === null) throw new Error('$batch: a part has no request line');
  return {
    method: requestLine[1] ?? 'GET',
    path: requestLine[2] ?? '',
    contentId: /content-id:\s*(\S+)/i.exec(partHead)?.[1] ?? null,
    body: rest.trim(),
  };
}

/** The multipart answer: one change set's answers, or the single failure that undid it. */
export function writeBatch(answers: readonly BatchAnswer[], boundary: string, failed: boolean): string {
  const changeset = `changesetresponse_${boundary}`;
  const http = (answer: BatchAnswer) =>
    `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n${answer.contentId === null ? '' : `Content-ID: ${answer.contentId}\r\n`}\r\n` +
    `HTTP/1.1 ${answer.status} ${answer.status < 400 ? 'OK' : 'Error'}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(answer.body)}\r\n`;
  if (failed)
    return `--${boundary}\r\n${http(answers[answers.length - 1] ?? { status: 500, body: null, contentId: null })}--${boundary}--\r\n`;
  return (
    `--${boundary}\r\nContent-Type: multipart/mixed; boundary=${changeset}\r\n\r\n` +
    answers.map((answer) => `--${changeset}\r\n${http(answer)}`).join('') +
    `--${changeset}--\r\n--${boundary}--\r\n`
  );
}
