import express, { type Express } from 'express';
import { allowedMethods } from './method-not-allowed.middleware';

/** Routes shaped like the gateway's, registered as Nest registers them (on the app's router). */
function app(): Express {
  const ok = (_req: express.Request, res: express.Response) => void res.end();
  const application = express();
  application.use((_req, _res, next) => next());
  application.post('/sms/v1/:subAccountId/many', ok);
  application.post('/api/v1/subaccounts/:subAccountId/messages/batch', ok);
  application.get('/api/v1/subaccounts/:subAccountId/messages/:umid', ok);
  application.get('/admin/v1/accounts/:accountId/rate-limit', ok);
  application.put('/admin/v1/accounts/:accountId/rate-limit', ok);
  return application;
}

describe('allowedMethods', () => {
  const application = app();
  const at = (path: string) => allowedMethods({ app: application, path });

  it('lists the methods of the routes that have the path, with HEAD wherever GET is', () => {
    expect(at('/sms/v1/acme_hq/many')).toEqual(['POST']);
    expect(at('/api/v1/subaccounts/acme_hq/messages/0193a')).toEqual(['GET', 'HEAD']);
    expect(at('/admin/v1/accounts/acme/rate-limit')).toEqual(['GET', 'HEAD', 'PUT']);
  });

  // Found by fuzzing the API document: GET .../messages/batch answered "no such message" (the
  // {umid} route) where the document has only POST.
  it('counts only the most specific routes: a concrete segment before a parameter', () => {
    expect(at('/api/v1/subaccounts/acme_hq/messages/batch')).toEqual(['POST']);
  });

  it('is empty for a path no route has, whatever the middleware', () => {
    expect(at('/sms/v1/acme_hq/few')).toEqual([]);
    expect(at('/sms/v1/acme_hq/many/more')).toEqual([]);
    expect(at('/')).toEqual([]);
    expect(allowedMethods({ app: express(), path: '/sms/v1/acme_hq/many' })).toEqual([]);
  });
});
