import { omitAbsent } from '../../common/replies/omit-absent';
import { AccessTokenEntity } from '../entities/access-token.entity';
import { CreditLedgerEntryEntity } from '../entities/credit-ledger-entry.entity';
import { UserEntity } from '../entities/user.entity';
import { BalanceDto, CreatedTokenDto, LedgerEntryDto, UserDto, WebhookSecretDto } from './user.dto';

export function toUserDto(user: UserEntity): UserDto {
  return { id: user.id, email: user.email, name: user.name, is_admin: user.isAdmin, credits: user.credits };
}

export function toCreatedTokenDto(token: AccessTokenEntity, secret: string): CreatedTokenDto {
  return omitAbsent({ id: token.id, token: secret, name: token.name, created_at: token.createdAt.toISOString() });
}

export function toLedgerEntryDto(entry: CreditLedgerEntryEntity): LedgerEntryDto {
  return omitAbsent({
    id: entry.id,
    kind: entry.kind,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    task_id: entry.taskId,
    created_at: entry.createdAt.toISOString(),
  });
}

export function toWebhookSecretDto(secret: string): WebhookSecretDto {
  return { secret };
}

export function toBalanceDto(userId: string, credits: number): BalanceDto {
  return { user_id: userId, balance: credits };
}
