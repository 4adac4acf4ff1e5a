import { BadRequestException, UnauthorizedException } from '@nestjs/common';
import { BodyTokenRateLimit } from '../common/http/rate-limit.module';
import { UsersService } from '../users/users.service';
import { CreateNodeVersionDto } from './dto/node-version.dto';
import { PublishNodeVersionDto } from './dto/publish.dto';
import { PublishBodyPipe } from './publish-body.pipe';

/** UsersService as the pipe uses it: only to tell whether a body token authenticates someone (`known`). */
const usersKnowing = (known: boolean) =>
  ({ authenticate: () => Promise.resolve(known ? { id: 'u1', email: 'u@example.com', name: 'U', isAdmin: false } : null) }) as unknown as UsersService;

/** A window that never fills: the pipe's rate limit is the e2e suites' (trust-proxy.e2e-spec.ts). */
const unlimited = { hit: () => Promise.resolve() } as unknown as BodyTokenRateLimit;

const transform = (body: object, users = usersKnowing(true)) => new PublishBodyPipe(users, unlimited).transform(body, { type: 'body' });

async function messageFor(body: object, users = usersKnowing(true)): Promise<string> {
  const error: unknown = await transform(body, users).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BadRequestException);
  return ((error as BadRequestException).getResponse() as { message: string }).message;
}

/** The publishing CLI's current body (comfy_cli/registry/api.py) for a pyproject.toml that sets none of the optional fields. */
const bareCliBody = {
  personal_access_token: 'token',
  node: {
    id: 'acme-upscaler',
    description: '',
    icon: '',
    name: '',
    license: '{}',
    repository: '',
    banner_url: '',
    supported_os: [],
    supported_accelerators: [],
    supported_comfyui_version: '',
    supported_comfyui_frontend_version: '',
  },
  node_version: {
    version: '1.0.0',
    dependencies: [],
    supported_os: [],
    supported_accelerators: [],
    supported_comfyui_version: '',
    supported_comfyui_frontend_version: '',
  },
};

const ranges = { supported_comfyui_version: '>=0.3.0', supported_comfyui_frontend_version: '>=1.2.0,<2.0.0' };
const classifiers = { supported_os: ['Microsoft :: Windows', 'OS Independent'], supported_accelerators: ['GPU :: NVIDIA CUDA'] };

describe('PublishBodyPipe', () => {
  it('takes the CLI’s empty strings and lists as "not given": dropped, so a node keeps its values', async () => {
    const body = await transform(bareCliBody);
    expect(body).toBeInstanceOf(PublishNodeVersionDto);
    expect(body).toEqual({
      personal_access_token: 'token',
      node: { id: 'acme-upscaler', license: '{}' },
      node_version: { version: '1.0.0', dependencies: [] },
    });
  });

  it('renames the CLI’s version ranges to this API’s names and keeps classifier tails as sent', async () => {
    const body = await transform({
      ...bareCliBody,
      node: { ...bareCliBody.node, ...ranges, ...classifiers, banner_url: 'https://example.com/banner.png' },
      node_version: { ...bareCliBody.node_version, ...ranges, ...classifiers },
    });
    const renamed = { supported_app_version: '>=0.3.0', supported_app_frontend_version: '>=1.2.0,<2.0.0', ...classifiers };
    expect(body).toEqual({
      personal_access_token: 'token',
      node: { id: 'acme-upscaler', license: '{}', banner_url: 'https://example.com/banner.png', ...renamed },
      node_version: { version: '1.0.0', dependencies: [], ...renamed },
    });
  });

  it('still clears a node field with null (merge-patch), and keeps "" outside the listed version fields', async () => {
    const body = await transform({
      node: { id: 'acme-upscaler', supported_os: null, supported_comfyui_version: null },
      node_version: { version: '1.0.0', changelog: '' },
    });
    expect(body).toEqual({
      node: { id: 'acme-upscaler', supported_os: null, supported_app_version: null },
      node_version: { version: '1.0.0', changelog: '' },
    });
  });

  it('accepts both names of a field when they are equal, or when one of them is empty (not given)', async () => {
    const body = await transform({
      node: { id: 'acme-upscaler', supported_comfyui_version: '>=0.3.0', supported_app_version: '>=0.3.0' },
      node_version: { version: '1.0.0', supported_comfyui_frontend_version: '', supported_app_frontend_version: '>=1.2.0' },
    });
    expect(body).toEqual({
      node: { id: 'acme-upscaler', supported_app_version: '>=0.3.0' },
      node_version: { version: '1.0.0', supported_app_frontend_version: '>=1.2.0' },
    });
  });

  it('refuses both names of a field with different values, naming them', async () => {
    expect(
      await messageFor({ node: { id: 'acme-upscaler', supported_comfyui_version: '>=0.3.0', supported_app_version: '>=0.4.0' }, node_version: { version: '1.0.0' } }),
    ).toBe('node.supported_comfyui_version and node.supported_app_version name the same field but differ: send one of them');
    expect(
      await messageFor({ node: { id: 'acme-upscaler' }, node_version: { version: '1.0.0', supported_comfyui_frontend_version: '>=1', supported_app_frontend_version: '>=2' } }),
    ).toBe('node_version.supported_comfyui_frontend_version and node_version.supported_app_frontend_version name the same field but differ: send one of them');
  });

  it('accepts the aliases in the bearer form too, and leaves its empty values as they are', async () => {
    const body = await transform({ version: '1.0.0', supported_comfyui_version: '>=0.3.0', supported_os: [] });
    expect(body).toBeInstanceOf(CreateNodeVersionDto);
    expect(body).toEqual({ version: '1.0.0', supported_app_version: '>=0.3.0', supported_os: [] });
    expect(await messageFor({ version: '1.0.0', supported_comfyui_version: '>=0.3.0', supported_app_version: '' })).toBe(
      'supported_comfyui_version and supported_app_version name the same field but differ: send one of them',
    );
  });

  it('answers 401 before any complaint about the body when its token authenticates no one', async () => {
    for (const body of [
      { ...bareCliBody, node: { id: 'acme-upscaler', bogus: 1 } },
      { ...bareCliBody, node_version: { version: '1.0.0', supported_comfyui_version: '>=1', supported_app_version: '>=2' } },
    ]) {
      const error: unknown = await transform(body, usersKnowing(false)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnauthorizedException);
    }
    // "" is no token (a bearer header may authenticate): the body's own problem is the answer.
    expect(await messageFor({ ...bareCliBody, personal_access_token: '', node: { id: 'acme-upscaler', bogus: 1 } }, usersKnowing(false))).toBe(
      'property node.bogus should not exist',
    );
  });

  it('still refuses keys no client sends, and invalid values under either name', async () => {
    expect(await messageFor({ ...bareCliBody, node_version: { version: '1.0.0', supported_comfyui_versions: '>=1' } })).toBe(
      'property node_version.supported_comfyui_versions should not exist',
    );
    // Checked under this API's name, which the message then uses.
    expect(await messageFor({ ...bareCliBody, node_version: { version: '1.0.0', supported_comfyui_version: ['>=1'] } })).toBe(
      'node_version.supported_app_version must be a string',
    );
  });
});
