import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiError } from '../http/api-error';
import { toApiError } from '../http/api-exception.filter';
import { AgentCommands } from './agent-commands';
import { guestErrorPage, guestPage } from './guest-page.html';
import { GuestPageDocs } from './guest-page.openapi';

/** The form of a guest token, checked here only so that nothing else is forwarded. */
const TOKEN = /^[\w.-]{1,200}$/;

/**
 * `GET /guest/{guestToken}` on the agent listener: the page a guest link opens. Browsers get HTML
 * (an error page too, for a link that is not valid); `Accept: application/json` gets the room as
 * JSON and errors as the contract's error body. The token is in the URL: the page is never
 * cached and sends no referrer.
 */
@Controller('guest')
@ApiTags('Guest page')
export class GuestPageController {
  constructor(private readonly agents: AgentCommands) {}

  @Get(':token')
  @GuestPageDocs()
  async show(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const json = req.accepts(['html', 'json']) === 'json';
    try {
      if (!TOKEN.test(token)) throw new ApiError(401, 1200, 'this guest link is not valid or has expired');
      const room = await this.agents.guestRoom(token);
      if (json) {
        res.status(200).json(room);
        return;
      }
      this.html(res, 200, guestPage(room));
    } catch (error) {
      const failure = toApiError(error);
      // Only refusals of the link get a page; anything else is answered like every other error.
      if (json || (failure.status !== 401 && failure.status !== 404)) throw failure;
      this.html(res, failure.status, guestErrorPage(failure.status));
    }
  }

  private html(res: Response, status: number, body: string): void {
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(status).type('html').send(body);
  }
}
