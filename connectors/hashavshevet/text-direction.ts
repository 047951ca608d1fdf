/**
 * Hebrew text order in the import file. The published description does not say whether the importer expects
 * logical order (the order text is typed and read, as Unicode stores it) or visual order (the order characters
 * appear on screen from left to right, as some older DOS-era programs stored Hebrew). Logical is the default;
 * visual is produced with the Unicode Bidirectional Algorithm at a right-to-left base direction, so digits and Latin
 * text inside Hebrew keep their reading order and brackets are mirrored.
 */
import bidiModule, { type Bidi } from 'bidi-js';

export type TextDirection = 'logical' | 'visual';
export const TEXT_DIRECTIONS: readonly TextDirection[] = ['logical', 'visual'];

/**
 * bidi-js is a CommonJS module whose `module.exports` is the factory; its types describe an ES default export, so
 * under NodeNext the default import is typed as the module. Take whichever the loader handed over.
 */
function loadBidi(): Bidi {
  const loaded: unknown = bidiModule;
  const factory = typeof loaded === 'function' ? (loaded as () => Bidi) : bidiModule.default;
  return factory();
}

const bidi = loadBidi();
const HAS_RIGHT_TO_LEFT = /[\u0590-\u05FF]/;

/** The field's text in the configured order; the length never changes (one character each). */
export function inDirection(text: string, direction: TextDirection): string {
  if (direction === 'logical' || !HAS_RIGHT_TO_LEFT.test(text)) return text;
  return bidi.getReorderedString(text, bidi.getEmbeddingLevels(text, 'rtl'));
}
