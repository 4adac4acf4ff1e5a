import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform, UnauthorizedException } from '@nestjs/common';
import { isPlainObject } from '../common/validation/plain-object';
import { BodyTokenRateLimit } from '../common/http/rate-limit.module';
import { StrictValidationPipe } from '../common/validation/validation.pipe';
import { UsersService } from '../users/users.service';
import { CreateNodeVersionDto } from './dto/node-version.dto';
import { PublishNodeVersionDto } from './dto/publish.dto';
import { INVALID_BODY_TOKEN } from './node-publishing.service';

type Fields = Record<string, unknown>;

/** The publishing CLI's names of two version ranges → this API's (docs/api-rules.md §9.0). A Map: no prototype keys to look up. */
const OWN_NAMES = new Map([
  ['supported_comfyui_version', 'supported_app_version'],
  ['supported_comfyui_frontend_version', 'supported_app_frontend_version'],
]);

const ownName = (key: string): string => OWN_NAMES.get(key) ?? key;

/** Fields the CLI always sends, as "" or [] when the project's pyproject.toml leaves them unset (by this API's names). */
const SENT_EMPTY_WHEN_UNSET = new Set(['supported_os', 'supported_accelerators', 'supported_app_version', 'supported_app_frontend_version', 'banner_url']);

/**
 * "" or [] in one of those fields means "not given" (§9.0), so it is dropped: a new version or
 * node gets the default, and an existing node's value stays. Read literally, that includes [] in `node`,
 * which therefore does not clear a list (send null to clear it, as on PUT).
 */
const unsetInVersion = (key: string, field: unknown): boolean =>
  SENT_EMPTY_WHEN_UNSET.has(key) && (field === '' || (Array.isArray(field) && field.length === 0));

// The CLI also sends "" for every other node field the metadata leaves unset (icon, repository, description, name): no value, not an invalid one.
const unsetInNode = (key: string, field: unknown): boolean => field === '' || unsetInVersion(key, field);

/** `fields` under this API's names; both names of a field given with different values is 400. */
function withOwnNames(fields: Fields, path: string): Fields {
  for (const [cliName, name] of OWN_NAMES) {
    if (cliName in fields && name in fields && fields[cliName] !== fields[name]) {
      throw new BadRequestException(`${path}${cliName} and ${path}${name} name the same field but differ: send one of them`);
    }
  }
  return Object.fromEntries(Object.entries(fields).map(([key, field]) => [ownName(key), field]));
}

/** `node` or `node_version` of the CLI's body, without what means "not given", under this API's names. */
function fromCli(part: Fields, path: string, isUnset: (key: string, field: unknown) => boolean): Fields {
  return withOwnNames(Object.fromEntries(Object.entries(part).filter(([key, field]) => !isUnset(ownName(key), field))), path);
}

/** The CLI's body with its `node` and `node_version` as fromCli makes them. */
function fromCliForm(body: Fields): Fields {
  const { node, node_version } = body;
  return {
    ...body,
    ...(isPlainObject(node) ? { node: fromCli(node, 'node.', unsetInNode) } : {}),
    ...(isPlainObject(node_version) ? { node_version: fromCli(node_version, 'node_version.', unsetInVersion) } : {}),
  };
}

/**
 * POST /publishers/{p}/nodes/{n}/versions takes two bodies (docs/api-rules.md §6):
 * the bearer form (CreateNodeVersionDto) and the public registry CLI's
 * (PublishNodeVersionDto, recognised by its own keys). Both accept the CLI's
 * names of the version ranges as aliases (§9.0); each is then
 * validated by the global pipe's rules as its own class, so either shape
 * gets the same strict checks and messages as every other route. Every key
 * the CLI's current release sends (docs/api-rules.md §9.0) is a field of
 * those classes, so none has to be accepted and ignored here. The body
 * token is checked here only to refuse early (401, 429, as a guard would);
 * the service resolves the caller from it (a cached lookup).
 */
@Injectable()
export class PublishBodyPipe implements PipeTransform {
  private readonly validation = new StrictValidationPipe();

  constructor(
    private readonly users: UsersService,
    private readonly rateLimit: BodyTokenRateLimit,
  ) {}

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const cliForm = isPlainObject(value) && ('personal_access_token' in value || 'node_version' in value);
    const token = cliForm ? value.personal_access_token : undefined;
    // A body token is checked and counted before the rest of the body, as the guards do a bearer token: 401 for one
    // that authenticates no one, 429 past its window. ("" is no token: the bearer header, if any, authenticates.)
    if (typeof token === 'string' && token !== '') {
      if (!(await this.users.authenticate(token))) throw new UnauthorizedException(INVALID_BODY_TOKEN);
      await this.rateLimit.hit(token);
    }
    return this.validation.transform(cliForm ? fromCliForm(value) : isPlainObject(value) ? withOwnNames(value, '') : value, {
      ...metadata,
      metatype: cliForm ? PublishNodeVersionDto : CreateNodeVersionDto,
    });
  }
}
