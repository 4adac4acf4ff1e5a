import { Module } from '@nestjs/common';
import { TokenCache } from './token-cache';
import { AdminUsersController } from './admin-users.controller';
import { CREDIT_METRICS } from './credit-metrics';
import { CreditsService } from './credits.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController, AdminUsersController],
  providers: [UsersService, CreditsService, UsersRepository, TokenCache, ...CREDIT_METRICS],
  exports: [UsersService, CreditsService],
})
export class UsersModule {}
