import { Module } from '@nestjs/common';
import { AdminUsersController } from './admin-users.controller';
import { CreditsService } from './credits.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController, AdminUsersController],
  providers: [UsersService, CreditsService, UsersRepository],
  exports: [UsersService, CreditsService],
})
export class UsersModule {}
