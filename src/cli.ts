import 'reflect-metadata';
import { ConflictException, HttpException, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { parseArgs } from 'node:util';
import { Principal } from './auth/principal';
import { ReadCacheModule } from './common/http/read-cache.module';
import { RedisModule } from './common/redis/redis.module';
import { appConfig, AppConfig, ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DEMO_PACKS, DEMO_PUBLISHER, demoArchive } from './demo/demo-packs';
import { ArchiveReview } from './nodes/review/archive-review';
import { NodesModule } from './nodes/nodes.module';
import { NodePublishingService } from './nodes/node-publishing.service';
import { NodesService } from './nodes/nodes.service';
import { PublishersModule } from './publishers/publishers.module';
import { PublishersService } from './publishers/publishers.service';
import { CreateTokenDto, CreateUserDto, GrantCreditsDto } from './users/dto/user.dto';
import { CreditsService } from './users/credits.service';
import { UsersModule } from './users/users.module';
import { UsersService } from './users/users.service';
import { describeValidationErrors } from './common/validation/validation.pipe';

// RedisModule: the users feature's token cache listens for revocations (in process, or Redis with REDIS_URL).
@Module({ imports: [ConfigModule, DatabaseModule.forRoot(), RedisModule, ReadCacheModule, UsersModule, PublishersModule, NodesModule] })
class CliModule {}

const USAGE = `usage: npm run cli -- <command>
  user create --email E --name N [--admin]
  token create --user ID [--name LABEL]
  credits grant --user ID --amount N
  demo`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

/** Validates CLI input with the same DTO rules as the HTTP API. */
async function validated<T extends object>(dto: ClassConstructor<T>, plain: object): Promise<T> {
  const instance = plainToInstance(dto, plain);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new UsageError(describeValidationErrors(errors).join('; '));
  }
  return instance;
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') {
    throw new UsageError(`--${name} is required`);
  }
  return value;
}

function integer(text: string, name: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`--${name} must be an integer`);
  return Number(text);
}

async function ignoreConflict(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
}

async function seedDemo(
  users: UsersService,
  credits: CreditsService,
  publishers: PublishersService,
  nodes: NodesService,
  publishing: NodePublishingService,
  review: ArchiveReview,
  base: string,
) {
  const email = 'demo@example.com';
  const userId = await users
    .createUser(await validated(CreateUserDto, { email, name: 'Demo User' }))
    .then((user) => user.id)
    .catch(async (error: unknown) => {
      if (!(error instanceof ConflictException)) throw error;
      return (await users.findByEmail(email)).id;
    });
  const demo: Principal = { id: userId, email, name: 'Demo User', isAdmin: false };
  const { token } = await users.createToken(userId, { name: 'demo' });
  await credits.grant(userId, 1000);
  await ignoreConflict(publishers.create(demo, DEMO_PUBLISHER));
  for (const pack of DEMO_PACKS) {
    await ignoreConflict(nodes.create(demo, DEMO_PUBLISHER.id, pack.node, base));
    for (const version of pack.versions) {
      await ignoreConflict(nodes.createVersion(demo, DEMO_PUBLISHER.id, pack.node.id, { ...version, changelog: `Release ${version.version}` }, base));
      // Each version gets an archive, checked before it installs (the same bytes on every run, so the same file).
      // Again on a rerun (the same bytes, the same file); a flagged version keeps its archive (409, ignored).
      await ignoreConflict(publishing.addArchive(demo, DEMO_PUBLISHER.id, pack.node.id, version.version, demoArchive(pack, version.version), base));
    }
  }
  // The archives are reviewed in the background (checks, node classes): wait, so that the routes below show the outcome at once.
  await review.idle();
  const auth = `-H "Authorization: Bearer ${token}"`;
  return {
    token,
    user_id: userId,
    publisher_id: 'demo-publisher',
    node_id: 'demo-upscaler',
    examples: [
      `curl ${base}/nodes/demo-upscaler`,
      `curl -X PUT ${base}/publishers/demo-publisher/nodes/demo-upscaler ${auth} -H "Content-Type: application/json" -d '{"description":"Upscales images 4x, now faster."}'`,
      `curl -X PUT ${base}/publishers/demo-publisher/nodes/demo-upscaler/versions/1.10.0 ${auth} -H "Content-Type: application/json" -d '{"deprecated":true}'`,
      `curl -X POST "${base}/nodes/demo-upscaler/reviews?star=5" ${auth}`,
      `curl ${base}/nodes/demo-upscaler/install`,
      `curl "${base}/nodes?page=1&limit=30&comfyui_version=v0.3.30&form_factor=git-linux"`,
      `curl "${base}/nodes?node_id=demo-upscaler&node_id=demo-metal-blur&sort=name;desc"`,
      `curl "${base}/nodes?supported_os=macos&supported_accelerator=metal"`,
      `curl "${base}/nodes/search?search=upscalr"`,
      `curl ${base}/publishers/demo-publisher/nodes`,
      `curl -X POST ${base}/bulk/nodes/versions -H "Content-Type: application/json" -d '{"node_versions":[{"node_id":"demo-upscaler","version":"1.9.0"}]}'`,
      `curl ${base}/nodes/demo-upscaler/versions/1.10.0/comfy-nodes`,
      `curl ${base}/comfy-nodes/DemoDepthEstimate/node`,
      `curl ${base}/publishers/demo-publisher/nodes/demo-remote-loader/versions/0.1.0/review ${auth}`,
    ],
  };
}

const OPTIONS = {
  email: { type: 'string' },
  name: { type: 'string' },
  admin: { type: 'boolean' },
  user: { type: 'string' },
  amount: { type: 'string' },
} as const;

/**
 * `--amount -5` as `--amount=-5`: parseArgs reads an argument that starts
 * with `-` as an option, so a negative number would never be a value.
 */
function negativeValuesAttached(argv: string[]): string[] {
  const takesValue = (arg: string) => arg.startsWith('--') && (OPTIONS as Record<string, { type: string }>)[arg.slice(2)]?.type === 'string';
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (takesValue(argv[i]) && /^-\d/.test(argv[i + 1] ?? '')) args.push(`${argv[i]}=${argv[++i]}`);
    else args.push(argv[i]);
  }
  return args;
}

/** Each command's options: another's is refused, not ignored (as the API refuses an unknown field). */
const COMMAND_OPTIONS: Record<string, (keyof typeof OPTIONS)[]> = {
  'user create': ['email', 'name', 'admin'],
  'token create': ['user', 'name'],
  'credits grant': ['user', 'amount'],
  demo: [],
};

/** The command and its options; a UsageError (exit 2, with the usage) for anything else. */
function parseCommand(argv: string[]): { command: string; values: Options } {
  let parsed: { positionals: string[]; values: Options };
  try {
    parsed = parseArgs({ args: negativeValuesAttached(argv), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // parseArgs's own refusals (an unknown option, a missing value) are usage errors like the others.
    if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(error.message);
    throw error;
  }
  const command = parsed.positionals.join(' ');
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(command ? `unknown command '${command}'` : 'no command given');
  const foreign = Object.keys(parsed.values).filter((name) => !(allowed as string[]).includes(name));
  if (foreign.length > 0) throw new UsageError(foreign.map((name) => `--${name} is not an option of '${command}'`).join('; '));
  return { command, values: parsed.values };
}

async function run(argv: string[]): Promise<object> {
  const { command, values } = parseCommand(argv);
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
  try {
    const users = app.get(UsersService);
    switch (command) {
      case 'user create': {
        const input = await validated(CreateUserDto, {
          email: required(values, 'email'),
          name: required(values, 'name'),
          is_admin: values.admin === true,
        });
        const { id, email, name, is_admin } = await users.createUser(input);
        return { id, email, name, is_admin };
      }
      case 'token create': {
        const input = await validated(CreateTokenDto, values.name === undefined ? {} : { name: values.name });
        const { id, token, name } = await users.createToken(required(values, 'user'), input);
        return { id, token, name };
      }
      case 'credits grant': {
        const { amount } = await validated(GrantCreditsDto, { amount: integer(required(values, 'amount'), 'amount') });
        return await app.get(CreditsService).grant(required(values, 'user'), amount);
      }
      default: {
        const { PORT, PUBLIC_BASE_URL } = app.get<AppConfig>(appConfig.KEY);
        // The address the printed curls reach the service at.
        const base = PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `http://localhost:${PORT}`;
        return await seedDemo(
          users,
          app.get(CreditsService),
          app.get(PublishersService),
          app.get(NodesService),
          app.get(NodePublishingService),
          app.get(ArchiveReview),
          base,
        );
      }
    }
  } finally {
    await app.close();
  }
}

/** `--help` alone: the usage, on stdout, and success. */
const HELP = ['--help', '-h', 'help'];

if (process.argv.length === 3 && HELP.includes(process.argv[2])) {
  process.stdout.write(`${USAGE}\n`);
} else {
  run(process.argv.slice(2))
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`error: ${error.message}\n${USAGE}\n`);
        process.exitCode = 2;
      } else {
        process.stderr.write(`error: ${error instanceof HttpException || error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      }
    });
}
