import { ValidationOptions } from 'class-validator';
import { customRule } from '../../common/validation/validators';

/**
 * Length in Unicode code points (an emoji counts once), computed without
 * materialising the string as an array: payloads run to a million characters.
 */
export function codePointLength(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}

/** At most `max` Unicode code points. */
export function MaxCodePoints(max: number, options: ValidationOptions = {}): PropertyDecorator {
  return customRule(
    'maxCodePoints',
    // Code points never outnumber UTF-16 units, so short strings need no counting.
    (value) => typeof value === 'string' && (value.length <= max || codePointLength(value) <= max),
    (property) => `${property} must be at most ${max} characters`,
    options,
  );
}

/** A string that holds valid JSON. */
export function IsJsonString(options: ValidationOptions = {}): PropertyDecorator {
  return customRule('isJsonString', isJson, (property) => `${property} must be a string holding valid JSON`, options);
}

function isJson(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

const IMAGE_DATA_URI_PREFIX = /^data:image\/(?:png|jpeg|webp);base64,/;
const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/** Base64 without a regex over the whole string (images run to megabytes; a repeating group would overflow the stack). */
function isBase64(text: string): boolean {
  if (text.length === 0 || text.length % 4 !== 0) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  for (let i = 0; i < text.length - padding; i++) {
    const c = text.charCodeAt(i);
    const valid =
      (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 /* + */ || c === 47; /* / */
    if (!valid) return false;
  }
  return true;
}

function isImageDataUri(value: string): boolean {
  const prefix = IMAGE_DATA_URI_PREFIX.exec(value);
  return prefix !== null && isBase64(value.slice(prefix[0].length));
}

/** Each entry an absolute http(s) URL or a base64 data URI of a PNG, JPEG or WebP image. */
export function IsImageReference(options: ValidationOptions = {}): PropertyDecorator {
  return customRule(
    'isImageReference',
    (value) =>
      typeof value === 'string' && (value.startsWith('data:') ? isImageDataUri(value) : value.length <= 2048 && HTTP_URL.test(value)),
    (property) => `each value in ${property} must be an http(s) URL or a base64 data URI of a png, jpeg or webp image`,
    { each: true, ...options },
  );
}
