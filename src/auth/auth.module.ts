import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UsersModule } from '../users/users.module';
import { BearerStrategy } from './bearer.strategy';

@Module({
  imports: [PassportModule.register({ session: false }), UsersModule],
  // The strategy AccessGuard authenticates with; the guard itself is global, registered in CoreModule.
  providers: [BearerStrategy],
})
export class AuthModule {}
