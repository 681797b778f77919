import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Public } from '../common/public.decorator';
import { RequestError } from '../errors/request-error';
import { ScopeGuard } from './scope.guard';
import type { Scope } from './scope-names';
import { RequireScope } from './scopes';

/** Handlers as Nest would see them: decorated like the app's routes. */
class Routes {
  @RequireScope('contacts:read') read(): void {}
  @RequireScope('contacts:write') write(): void {}
  @RequireScope('admin') admin(): void {}
  undeclared(): void {}
  @Public() open(): void {}
}

const contextFor = (handler: keyof Routes, scope?: Scope): ExecutionContext =>
  ({
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => ({ caller: scope ? { organizationId: 'o', apiKeyId: 'k', scope } : undefined }) }),
  }) as unknown as ExecutionContext;

describe('ScopeGuard', () => {
  const guard = new ScopeGuard(new Reflector());
  const outcome = (handler: keyof Routes, scope?: Scope) => {
    try {
      return guard.canActivate(contextFor(handler, scope));
    } catch (error) {
      return (error as RequestError).code;
    }
  };

  it('each scope includes the ones before it', () => {
    expect(['read', 'write', 'admin'].map((h) => outcome(h as keyof Routes, 'contacts:read'))).toEqual([true, 'INSUFFICIENT_SCOPE', 'INSUFFICIENT_SCOPE']);
    expect(['read', 'write', 'admin'].map((h) => outcome(h as keyof Routes, 'contacts:write'))).toEqual([true, true, 'INSUFFICIENT_SCOPE']);
    expect(['read', 'write', 'admin'].map((h) => outcome(h as keyof Routes, 'admin'))).toEqual([true, true, true]);
  });

  it('denies by default: a route without @RequireScope is refused to every key, even admin', () => {
    expect(outcome('undeclared', 'admin')).toBe('INSUFFICIENT_SCOPE');
  });

  it('lets public routes through without a caller', () => {
    expect(outcome('open')).toBe(true);
  });
});
