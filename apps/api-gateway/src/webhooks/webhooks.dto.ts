import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsString } from 'class-validator';

@ApiSchema({ name: 'SetWebhookRequest' })
export class SetWebhookDto {
  @ApiProperty({
    type: 'string',
    format: 'uri',
    maxLength: 2048,
    description: "The account's default callback URL, used for messages without their own `dlrCallbackUrl`: http(s), no credentials. Otherwise: 400, code 1000.",
    example: 'https://hooks.acme.example/dlr',
  })
  @IsString()
  dlrCallbackUrl!: string;
}
