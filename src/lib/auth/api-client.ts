// Same-origin JSON calls from islands to the session endpoints.
export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; error: string; message: string };

export async function postJson<T>(path: string, body: unknown): Promise<ApiResult<T>> {
  try {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (res.ok) return { ok: true, data: json as T };
    return { ok: false, status: res.status, error: json.error ?? 'unknown', message: json.message ?? '' };
  } catch {
    return { ok: false, status: 0, error: 'network', message: 'Network Error' };
  }
}
