import { mount } from 'svelte';
import IndexStatus from './ui/IndexStatus.svelte';

mount(IndexStatus, { target: document.getElementById('app')! });
