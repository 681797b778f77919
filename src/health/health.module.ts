import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ContactsModule } from '../contacts/contacts.module';
import { CustomFieldsModule } from '../custom-fields/custom-fields.module';
import { ListsModule } from '../lists/lists.module';
import { RequestsModule } from '../requests/requests.module';
import { HealthController } from './health.controller';
import { WarmUpService } from './warm-up.service';

@Module({
  imports: [AuthModule, ListsModule, CustomFieldsModule, ContactsModule, RequestsModule],
  controllers: [HealthController],
  providers: [WarmUpService],
})
export class HealthModule {}
