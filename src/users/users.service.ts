import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Principal } from '../auth/principal';
import { TokenCache } from './token-cache';
import { generateToken, generateWebhookSecret, hashToken } from '../auth/token-hash';
import { offsetOf, pageOf } from '../common/pagination/page-query.dto';
import { TransactionRunner } from '../database/transaction-runner';
import { CreateTokenDto, CreateUserDto, CreatedTokenDto, LedgerPageDto, UserDto, WebhookSecretDto } from './dto/user.dto';
import { toCreatedTokenDto, toLedgerEntryDto, toUserDto, toWebhookSecretDto } from './dto/user.mapper';
import { UserEntity } from './entities/user.entity';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly tx: TransactionRunner,
    private readonly tokenCache: TokenCache,
  ) {}

  /** The principal behind a bearer token, or null when the token is unknown or revoked. */
  async authenticate(token: string): Promise<Principal | null> {
    const tokenHash = hashToken(token);
    const cached = this.tokenCache.get(tokenHash);
    if (cached) return cached;
    const user = await this.users.findUserByActiveTokenHash(tokenHash);
    if (!user) return null;
    const principal = { id: user.id, email: user.email, name: user.name, isAdmin: user.isAdmin };
    this.tokenCache.set(tokenHash, principal);
    return principal;
  }

  createUser(input: CreateUserDto): Promise<UserDto> {
    const email = input.email.toLowerCase();
    return this.tx.run(async (manager) => {
      if (await this.users.findByEmail(email, manager)) {
        throw new ConflictException(`a user with email '${email}' already exists`);
      }
      const user = await this.users.insertUser(
        manager,
        Object.assign(new UserEntity(), {
          id: randomUUID(),
          email,
          name: input.name,
          isAdmin: input.is_admin ?? false,
          credits: 0,
          createdAt: new Date(),
        }),
      );
      return toUserDto(user);
    });
  }

  async findByEmail(email: string): Promise<UserDto> {
    const user = await this.users.findByEmail(email.toLowerCase());
    if (!user) {
      throw new NotFoundException(`no user with email '${email}'`);
    }
    return toUserDto(user);
  }

  async getUser(userId: string): Promise<UserDto> {
    return toUserDto(await this.requireUser(userId));
  }

  /** The users with these ids; unknown ids are left out. */
  async findUsers(userIds: string[]): Promise<UserDto[]> {
    return (await this.users.findByIds(userIds)).map(toUserDto);
  }

  createToken(userId: string, input: CreateTokenDto): Promise<CreatedTokenDto> {
    const secret = generateToken();
    return this.tx.run(async (manager) => {
      await this.requireUser(userId, manager);
      const token = await this.users.insertToken(manager, {
        id: randomUUID(),
        userId,
        name: input.name ?? null,
        tokenHash: hashToken(secret),
        createdAt: new Date(),
        revokedAt: null,
      });
      return toCreatedTokenDto(token, secret);
    });
  }

  async revokeToken(userId: string, tokenId: string): Promise<void> {
    const revokedHash = await this.tx.run((manager) => this.users.revokeToken(manager, userId, tokenId, new Date()));
    if (!revokedHash) {
      throw new NotFoundException(`token '${tokenId}' not found`);
    }
    await this.tokenCache.evict(revokedHash);
  }

  /** The secret that signs the user's task callbacks, created on first use. */
  async webhookSecret(userId: string): Promise<WebhookSecretDto> {
    const secret = await this.tx.run((manager) => this.users.ensureWebhookSecret(manager, userId, generateWebhookSecret()));
    if (!secret) throw new NotFoundException(`user '${userId}' not found`);
    return toWebhookSecretDto(secret);
  }

  /** Replaces the webhook secret; callbacks sent from now on are signed with the new one. */
  async rotateWebhookSecret(userId: string): Promise<WebhookSecretDto> {
    const secret = generateWebhookSecret();
    await this.tx.run((manager) => this.users.setWebhookSecret(manager, userId, secret));
    return toWebhookSecretDto(secret);
  }

  async ledger(userId: string, page: number, limit: number): Promise<LedgerPageDto> {
    const [entries, total] = await this.users.ledgerPage(userId, offsetOf({ page, limit }), limit);
    return pageOf(total, 'entries', entries.map(toLedgerEntryDto), { page, limit });
  }

  /** Inside a transaction, pass its manager: a query on another pooled connection could wait on this one forever. */
  private async requireUser(userId: string, manager?: EntityManager): Promise<UserEntity> {
    const user = await this.users.findById(userId, manager);
    if (!user) {
      throw new NotFoundException(`user '${userId}' not found`);
    }
    return user;
  }
}
