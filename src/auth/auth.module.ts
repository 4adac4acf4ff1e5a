import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UsersModule } from '../users/users.module';
import { BearerStrategy } from './bearer.strategy';

@Module({
  imports: [PassportModule.register({ session: false }), UsersModule],
  providers: [BearerStrategy],
})
export class AuthModule {}
