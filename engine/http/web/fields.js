// One form control per declared field, chosen by the field's type, and how its value is read back
// for the request body. `read()` gives EMPTY for a control left empty: a create leaves it out (the
// declared default applies), an edit sends null where the field may be null.
import { choiceText, h, labelOf } from './dom.js';
import { t } from './i18n.js';
import { picker } from './picker.js';

export const EMPTY = Symbol('empty');

const text = (input) => () => (input.value === '' ? EMPTY : input.value);

/** `2026-05-01T12:00:00.000Z` → the local `2026-05-01T14:00` a datetime-local input shows. */
function localDateTime(iso) {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function options(field, values, current, empty) {
  return [...(empty === undefined ? [] : [h('option', { value: '' }, empty)]), ...values.map((v) => h('option', { value: v, selected: v === current }, choiceText(field, v)))];
}

const INPUT_TYPES = { string: 'text', email: 'email', url: 'url', color: 'text', date: 'date', time: 'time' };

/** The control of a scalar field: `{ element, read }`. */
function scalar(field, value, { id, creating, permissionNames }) {
  const { spec } = field;
  const attrs = { id, name: field.writeName, 'aria-required': field.required || undefined };
  switch (spec.type) {
    case 'text': {
      const area = h('textarea', { ...attrs, rows: 4, maxlength: spec.maxLength }, value ?? '');
      return { element: area, read: text(area) };
    }
    case 'json': {
      const area = h('textarea', { ...attrs, rows: 4, class: 'code' }, value === null || value === undefined ? '' : JSON.stringify(value, null, 2));
      // what does not parse is sent as text, for the server to name what is wrong
      const read = () => {
        if (area.value.trim() === '') return EMPTY;
        try {
          return JSON.parse(area.value);
        } catch {
          return area.value;
        }
      };
      return { element: area, read };
    }
    case 'integer': {
      const input = h('input', { ...attrs, type: 'number', step: 1, min: spec.minimum, max: spec.maximum, value: value ?? undefined });
      return { element: input, read: () => (input.value === '' ? EMPTY : Number(input.value)) };
    }
    case 'decimal': {
      // sent as text, as the API serves it, so no digit is lost to floating point
      const input = h('input', { ...attrs, inputmode: 'decimal', value: value ?? undefined });
      return { element: input, read: text(input) };
    }
    case 'boolean': {
      const box = h('input', { ...attrs, type: 'checkbox', checked: value ?? spec.default ?? false });
      return { element: box, read: () => box.checked };
    }
    case 'datetime': {
      const shownAs = value ? localDateTime(value) : undefined;
      const input = h('input', { ...attrs, type: 'datetime-local', value: shownAs });
      // the input shows minutes; an untouched value keeps its seconds
      return { element: input, read: () => (input.value === '' ? EMPTY : input.value === shownAs ? value : new Date(input.value).toISOString()) };
    }
    case 'enum':
    case 'state': {
      const values = spec.type === 'state' && creating ? spec.initial : spec.values;
      const current = value ?? (creating ? spec.default : undefined);
      const select = h('select', attrs, options(field, values, current, field.required && current !== undefined ? undefined : '—'));
      return { element: select, read: text(select) };
    }
    case 'password': {
      const input = h('input', { ...attrs, type: 'password', autocomplete: 'new-password' });
      return { element: input, read: text(input) };
    }
    case 'permissions': {
      const select = h('select', { ...attrs, multiple: true, size: 8 }, permissionNames.map((p) => h('option', { value: p, selected: (value ?? []).includes(p) }, p)));
      return { element: select, read: () => [...select.selectedOptions].map((o) => o.value) };
    }
    default: {
      const input = h('input', { ...attrs, type: INPUT_TYPES[spec.type] ?? 'text', maxlength: spec.maxLength, step: spec.type === 'time' ? 1 : undefined, value: value ?? undefined });
      return { element: input, read: text(input) };
    }
  }
}

/** What the hint under a control says: the description, and the limits the declaration sets. */
function hint(field) {
  const { spec } = field;
  const limits = [];
  if (spec?.maxLength) limits.push(t('hintMaxLength', { n: spec.maxLength }));
  if (spec?.type === 'decimal') limits.push(t('hintDigits', { before: spec.digits - spec.decimals, after: spec.decimals }));
  if (spec?.minimum !== undefined) limits.push(t('hintMin', { n: spec.minimum }));
  if (spec?.maximum !== undefined) limits.push(t('hintMax', { n: spec.maximum }));
  if (!limits.length) return field.description;
  const said = limits.join(', ');
  return `${field.description} ${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
}

/**
 * A labelled control for `field` holding `value`: `{ element, read, showError }`.
 * `ctx`: `{ creating, resources, canView(key), permissionNames }`.
 */
export function fieldControl(field, value, ctx) {
  const id = `field-${field.writeName}`;
  const control =
    field.kind === 'field'
      ? scalar(field, value, { id, ...ctx })
      : picker({
          id,
          label: labelOf(field),
          target: ctx.resources[field.target],
          value,
          many: field.kind === 'm2m',
          empty: field.required ? t('choose') : '—',
          canView: ctx.canView(field.target),
        });
  const error = h('p', { id: `${id}-error`, class: 'error', hidden: true });
  const element = h(
    'div',
    { class: 'field', 'data-field': field.writeName },
    h('label', { for: id }, labelOf(field), field.required ? h('abbr', { class: 'required', title: t('required') }, '*') : null),
    control.element,
    h('small', { id: `${id}-hint`, class: 'hint' }, hint(field)),
    error,
  );
  const showError = (messages) => {
    error.textContent = messages ? messages.join(' ') : '';
    error.hidden = !messages;
    element.classList.toggle('invalid', Boolean(messages));
  };
  element.querySelector(`#${id}`).setAttribute('aria-describedby', `${id}-hint ${id}-error`);
  // an error is about the value that was sent; editing it makes the message stale
  const edited = (event) => event.target.type !== 'search' && showError(null);
  element.addEventListener('input', edited);
  element.addEventListener('change', edited);
  return { element, read: control.read, showError, focus: () => element.querySelector('input, select, textarea')?.focus() };
}
