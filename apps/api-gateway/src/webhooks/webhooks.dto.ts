import { IsString } from 'class-validator';

export class SetWebhookDto {
  @IsString()
  dlrCallbackUrl!: string;
}
