/** `POST /v1/auth/logout`: the session's token is denied until it would have expired anyway. */

import type { SessionClaims } from '../domain/auth.ts';
import { revokeSession } from '../store/sessions.ts';

export const logOut = (session: SessionClaims): Promise<void> => revokeSession(session);
