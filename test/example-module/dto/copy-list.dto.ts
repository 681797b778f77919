import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { KnownKeysOnly } from '../../../src/validation/known-keys.decorator';

@ApiSchema({ name: 'CopyListInput' }) // the component name clients' generated types will use
@KnownKeysOnly() // any other key is refused ("Unknown key: color")
export class CopyListDto {
  @ApiProperty({ example: 'Newsletter (copy)', minLength: 1, maxLength: 255 })
  @Length(1, 255, { message: '$path must be 1 to 255 characters' })
  @IsString({ message: '$path must be a string' })
  name!: string;
}
