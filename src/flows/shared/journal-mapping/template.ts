/**
 * Text templates with {placeholder} fields, checked once against the allowed names so a typo in the config is an
 * error at start, not a blank in every record.
 */
const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/g;

export class TemplateError extends Error {}

export type TemplateValues = Readonly<Record<string, string | null | undefined>>;

export function compileTemplate(
  template: string,
  allowed: readonly string[],
): (values: TemplateValues) => string {
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .map((match) => match[1] ?? '')
    .filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    throw new TemplateError(
      `template "${template}" uses unknown field(s) ${unknown.map((n) => `{${n}}`).join(', ')}; ` +
        `known fields: ${allowed.map((n) => `{${n}}`).join(' ')}`,
    );
  }
  // Split once into literal text (even positions) and field names (odd positions): a record per line fills it.
  const parts = template.split(PLACEHOLDER);
  return (values) => {
    let text = '';
    for (let i = 0; i < parts.length; i += 1) {
      const part = parts[i] ?? '';
      text += i % 2 === 0 ? part : (values[part] ?? '');
    }
    return text.replace(/\s+/g, ' ').trim();
  };
}
