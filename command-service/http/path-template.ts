/**
 * OpenAPI path templates (`/resources/{resource_id}/roles`), the one form in
 * which routes declare their paths, and what express and the router's
 * fallback need from them.
 */

const PARAMETER = /\{(\w+)\}/g;
/** Literal parts may hold only characters that mean nothing to express's path syntax. */
const LITERAL = /^[A-Za-z0-9_\-./]*$/;

/** The `{name}` parameters of a template, in order. */
export function templateParameters(template: string): string[] {
  return [...template.matchAll(PARAMETER)].map((m) => m[1]!);
}

/**
 * The express form of a template: `{name}` becomes `:name`. It must be
 * translated: express 5 reads braces as an optional part of the path.
 */
export function expressPath(template: string): string {
  checkTemplate(template);
  return template.replace(PARAMETER, ':$1');
}

/**
 * Whether a request path (as express sees it, not decoded) is one the template
 * describes, matched as express matches routes by default: letter case
 * ignored, a trailing slash allowed, a parameter is one non-empty segment.
 */
export function templateMatcher(template: string): (path: string) => boolean {
  checkTemplate(template);
  const literals = template.split(PARAMETER).filter((_, i) => i % 2 === 0);
  const pattern = literals.map((literal) => literal.replace(/[.]/g, '\\.')).join('[^/]+');
  const regexp = new RegExp(`^${pattern}/?$`, 'i');
  return (path) => regexp.test(path);
}

function checkTemplate(template: string): void {
  if (!template.startsWith('/') || !template.split(PARAMETER).every((part, i) => i % 2 === 1 || LITERAL.test(part))) {
    throw new Error(`'${template}' is not a path template this service can serve (literal parts: letters, digits, _ - . /)`);
  }
}
