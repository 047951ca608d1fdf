/**
 * Single-byte Hebrew text for files that older accounting packages read. windows-1255 and ISO-8859-8 agree on the
 * Hebrew letters and most symbols, but not on the shekel sign, geresh, gershayim, niqqud and the 0x80-0x9F range.
 * Text is accepted only when every character is in the shared set, so the file reads the same under either
 * code page; characters outside it are replaced through a configured map or refused with a clear error.
 */
import iconv from 'iconv-lite';

export type SingleByteEncoding = 'windows-1255';

function buildSharedSet(): ReadonlySet<string> {
  const shared = new Set<string>();
  for (let byte = 0x20; byte <= 0xff; byte += 1) {
    if (byte === 0x7f) continue;
    const asWindows = iconv.decode(Buffer.from([byte]), 'windows-1255');
    const asIso = iconv.decode(Buffer.from([byte]), 'iso-8859-8');
    if (asWindows === asIso && asWindows !== '\ufffd') shared.add(asWindows);
  }
  return shared;
}

/** Every character that encodes to the same single byte in windows-1255 and ISO-8859-8 (controls excluded). */
export const SHARED_HEBREW_CHARACTERS: ReadonlySet<string> = buildSharedSet();

export class UnencodableTextError extends Error {
  readonly character: string;
  constructor(character: string, context: string) {
    const code = `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    super(
      `${context}: character "${character}" (${code}) is not one that windows-1255 and ISO-8859-8 share; ` +
        `add it to the connector's char_map (for example "${character}": "") or remove it from the source`,
    );
    this.name = 'UnencodableTextError';
    this.character = character;
  }
}

/** Printable ASCII reads the same in both code pages and is its own NFC form. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const mapsAsciiCache = new WeakMap<Readonly<Record<string, string>>, boolean>();

/** Whether the map replaces some printable ASCII character (then ASCII text cannot pass through unchanged). */
function mapsAscii(charMap: Readonly<Record<string, string>>): boolean {
  let maps = mapsAsciiCache.get(charMap);
  if (maps === undefined) {
    maps = Object.keys(charMap).some((character) => PRINTABLE_ASCII.test(character));
    mapsAsciiCache.set(charMap, maps);
  }
  return maps;
}

/** Applies the character map, then checks every character is in the shared set. Returns the mapped text. */
export function toSharedHebrew(
  text: string,
  charMap: Readonly<Record<string, string>>,
  context: string,
): string {
  if (PRINTABLE_ASCII.test(text) && !mapsAscii(charMap)) return text;
  let out = '';
  for (const character of text.normalize('NFC')) {
    const mapped = charMap[character] ?? character;
    for (const piece of mapped) {
      if (!SHARED_HEBREW_CHARACTERS.has(piece)) throw new UnencodableTextError(piece, context);
      out += piece;
    }
  }
  return out;
}

/** Encodes text already checked with toSharedHebrew: one byte per character. */
export function encodeSingleByte(text: string, encoding: SingleByteEncoding = 'windows-1255'): Buffer {
  return iconv.encode(text, encoding);
}
